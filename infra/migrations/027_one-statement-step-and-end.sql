-- Up Migration

-- A model step of a task's single agent on the task's own run, recorded in one statement: the
-- step's records, its usage, the agent's row with AGENT_STARTED the first time, and the notes that
-- send the rest of its streamed text to live readers. It writes what the step's transaction writes
-- (core/tasks/run/model-step.ts), in the same order and under the same locks (the records' session,
-- then the run, then the task), and only the common case: every record new, the task still
-- running. Anything else (a retry that finds records stored, a run that stopped, a task that has
-- ended meanwhile, whose totals the step must sum again) raises WF001 before the statement ends,
-- so nothing is written, and the caller takes the transaction's full path.
CREATE FUNCTION weft_record_task_step(
  p_run_id text, p_session_id text,
  p_keys text[], p_agent_ids text[], p_session_ids text[], p_turn_ids text[], p_types text[], p_payloads bytea[], p_recorded_ats timestamptz[],
  p_task_id text, p_step_key text, p_usage_agent_id text, p_model text,
  p_prompt_tokens integer, p_completion_tokens integer, p_total_tokens integer, p_cost_usd double precision, p_cache_hit boolean,
  p_at timestamptz, p_estimated boolean, p_agent_id text,
  p_event_workflow_id text, p_event_key text, p_event_type text, p_event_agent_id text, p_event_message text, p_event_payload jsonb,
  p_channel text, p_notes text[]
) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  v_inserted integer;
  v_status text;
  v_agent_started integer;
  v_note text;
BEGIN
  PERFORM 1 FROM runtime_sessions WHERE session_id = p_session_id FOR NO KEY UPDATE;
  WITH written AS (
    INSERT INTO runtime_run_records (run_id, event_key, agent_id, session_id, turn_id, record_type, payload, recorded_at)
    SELECT run.run_id, r.event_key, r.agent_id, r.session_id, r.turn_id, r.record_type, r.payload, r.recorded_at
    FROM runtime_runs run,
         unnest(p_keys, p_agent_ids, p_session_ids, p_turn_ids, p_types, p_payloads, p_recorded_ats) WITH ORDINALITY
           AS r(event_key, agent_id, session_id, turn_id, record_type, payload, recorded_at, position)
    WHERE run.run_id = p_run_id AND run.status = 'running'
      AND r.agent_id = run.agent_id AND coalesce(r.session_id, '') = coalesce(run.session_id, '')
    ORDER BY r.position
    FOR NO KEY UPDATE OF run
    ON CONFLICT (run_id, event_key) DO NOTHING
    RETURNING 1
  )
  SELECT count(*) INTO v_inserted FROM written;
  IF v_inserted <> cardinality(p_keys) THEN
    RAISE EXCEPTION 'the step is not new, or its run has stopped' USING ERRCODE = 'WF001';
  END IF;
  SELECT status INTO v_status FROM tasks WHERE task_id = p_task_id FOR UPDATE;
  IF v_status IS DISTINCT FROM 'RUNNING' AND v_status IS DISTINCT FROM 'QUEUED' THEN
    RAISE EXCEPTION 'the task has ended' USING ERRCODE = 'WF001';
  END IF;
  INSERT INTO task_usage (task_id, step_key, agent_id, model, prompt_tokens, completion_tokens, total_tokens, cost_usd, cache_hit, recorded_at, estimated)
    VALUES (p_task_id, p_step_key, p_usage_agent_id, p_model, p_prompt_tokens, p_completion_tokens, p_total_tokens, p_cost_usd, p_cache_hit, p_at, p_estimated)
    ON CONFLICT (task_id, step_key) DO NOTHING;
  WITH written AS (
    INSERT INTO task_agents (task_id, agent_id, run_id, status, started_at) VALUES (p_task_id, p_agent_id, p_run_id, 'RUNNING', p_at)
    ON CONFLICT (task_id, agent_id) DO UPDATE SET run_id = EXCLUDED.run_id, status = 'RUNNING', started_at = EXCLUDED.started_at, result = '', error = '', completed_at = NULL
      WHERE task_agents.run_id <> EXCLUDED.run_id
    RETURNING 1
  )
  SELECT count(*) INTO v_agent_started FROM written;
  IF v_agent_started > 0 THEN
    PERFORM weft_append_task_event(p_event_workflow_id, p_event_key, p_event_type, p_event_agent_id, p_event_message, p_event_payload, p_at, p_channel);
  END IF;
  FOREACH v_note IN ARRAY p_notes LOOP
    PERFORM pg_notify(p_channel, v_note);
  END LOOP;
  RETURN true;
END
$$;

-- A one-shot task's end, in one statement: its run's run_completed with the run's status, the
-- task's outcome with its usage totals, its single agent's end with AGENT_COMPLETED or
-- AGENT_FAILED when it still ran, what else of the task is left open closed, and its final events.
-- It writes what the end's transaction writes (core/tasks/run/task-lifecycle.ts), in the same order
-- and under the same locks (the run's session, the run, the task), for the common end only: a
-- completed or failed run whose end is not recorded yet, owned as the record says, with its task
-- indexed. Anything else raises WF001 before the statement ends, so nothing is written, and the
-- caller takes the transaction's full path (a retry's exact replay, a conflict, a cancellation).
CREATE FUNCTION weft_end_task(
  p_run_id text, p_session_id text, p_status text,
  p_key text, p_agent_id text, p_type text, p_payload bytea, p_at timestamptz,
  p_task_id text, p_task_status text, p_result text, p_error text, p_model text,
  p_main_agent_id text,
  p_agent_event_workflow_id text, p_agent_event_key text, p_agent_event_type text, p_agent_event_agent_id text, p_agent_event_message text,
  p_agent_event_payload jsonb,
  p_event_workflow_ids text[], p_event_keys text[], p_event_types text[], p_event_agent_ids text[], p_event_messages text[], p_event_payloads jsonb[],
  p_channel text
) RETURNS TABLE (total_tokens integer, cost_usd double precision, mode text, created_at timestamptz, tenant_id text, user_id text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_run runtime_runs%ROWTYPE;
  v_record_id bigint;
  v_agent_ended integer;
  v_i integer;
BEGIN
  IF p_status NOT IN ('completed', 'failed') THEN
    RAISE EXCEPTION 'only a completed or failed end is common' USING ERRCODE = 'WF001';
  END IF;
  PERFORM 1 FROM runtime_sessions WHERE session_id = (SELECT session_id FROM runtime_runs WHERE run_id = p_run_id) FOR UPDATE;
  SELECT * INTO v_run FROM runtime_runs WHERE run_id = p_run_id FOR UPDATE;
  IF NOT FOUND OR v_run.agent_id <> p_agent_id OR coalesce(v_run.session_id, '') <> coalesce(p_session_id, '')
     OR EXISTS (SELECT 1 FROM runtime_run_lifecycle WHERE run_id = p_run_id AND change = 'terminal' AND subject = '') THEN
    RAISE EXCEPTION 'the end is not new, or the run is not as the record says' USING ERRCODE = 'WF001';
  END IF;
  INSERT INTO runtime_run_records (run_id, event_key, agent_id, session_id, turn_id, record_type, payload, recorded_at)
    VALUES (p_run_id, p_key, p_agent_id, p_session_id, '', p_type, p_payload, p_at)
    ON CONFLICT (run_id, event_key) DO NOTHING
    RETURNING record_id INTO v_record_id;
  IF v_record_id IS NULL THEN
    RAISE EXCEPTION 'the end''s record key is in use' USING ERRCODE = 'WF001';
  END IF;
  INSERT INTO runtime_run_lifecycle (run_id, change, subject, record_id) VALUES (p_run_id, 'terminal', '', v_record_id);
  UPDATE runtime_runs SET status = p_status, updated_at = p_at WHERE run_id = p_run_id;

  PERFORM 1 FROM tasks WHERE task_id = p_task_id FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'the task is not indexed' USING ERRCODE = 'WF001';
  END IF;
  RETURN QUERY
    UPDATE tasks SET status = p_task_status, result = p_result, error_message = p_error, model = p_model, completed_at = p_at, progress = 1,
                     (prompt_tokens, completion_tokens, total_tokens, cost_usd, cache_hit, usage_estimated) =
                     (SELECT coalesce(sum(u.prompt_tokens), 0), coalesce(sum(u.completion_tokens), 0), coalesce(sum(u.total_tokens), 0),
                             coalesce(sum(u.cost_usd), 0), coalesce(bool_or(u.cache_hit), false), coalesce(bool_or(u.estimated), false)
                      FROM task_usage u WHERE u.task_id = p_task_id)
    WHERE task_id = p_task_id
    RETURNING total_tokens, cost_usd, mode, created_at, tenant_id, user_id;

  WITH ended AS (
    UPDATE task_agents SET status = p_task_status, result = p_result, error = p_error, completed_at = p_at
    WHERE task_id = p_task_id AND agent_id = p_main_agent_id AND status = 'RUNNING'
    RETURNING 1
  )
  SELECT count(*) INTO v_agent_ended FROM ended;
  IF v_agent_ended > 0 THEN
    PERFORM weft_append_task_event(p_agent_event_workflow_id, p_agent_event_key, p_agent_event_type, p_agent_event_agent_id, p_agent_event_message,
                                   p_agent_event_payload, p_at, p_channel);
  END IF;

  UPDATE approvals SET status = 'expired', decided_at = p_at WHERE task_id = p_task_id AND status = 'pending';
  UPDATE task_agents SET status = 'CANCELLED', error = 'the task ended first', completed_at = p_at WHERE task_id = p_task_id AND status = 'RUNNING';
  UPDATE budget_reservations SET settled_at = p_at WHERE task_id = p_task_id AND settled_at IS NULL;

  FOR v_i IN 1 .. cardinality(p_event_keys) LOOP
    PERFORM weft_append_task_event(p_event_workflow_ids[v_i], p_event_keys[v_i], p_event_types[v_i], p_event_agent_ids[v_i], p_event_messages[v_i],
                                   p_event_payloads[v_i], p_at, p_channel);
  END LOOP;
END
$$;

-- Down Migration
DROP FUNCTION weft_end_task(
  text, text, text, text, text, text, bytea, timestamptz, text, text, text, text, text, text, text, text, text, text, text, jsonb,
  text[], text[], text[], text[], text[], jsonb[], text
);
DROP FUNCTION weft_record_task_step(
  text, text, text[], text[], text[], text[], text[], bytea[], timestamptz[], text, text, text, text, integer, integer, integer,
  double precision, boolean, timestamptz, boolean, text, text, text, text, text, text, jsonb, text, text[]
);
