-- Up Migration

-- Appends events in the order given, in one statement, writing each workflow's counter row once
-- however many events it takes: the row is locked (FOR UPDATE, no new row version) for the rest of
-- the transaction, so appends to one workflow serialize and their sequence numbers are dense and
-- commit in order; the row is then written once with the last number taken. A workflow's first
-- append creates the row holding that number at once: with no counter row there is no event of the
-- workflow yet (the row is written with the workflow's first event and deleted only with all of
-- them). An event whose key is in the log already, or earlier in the batch, is not appended again
-- and answers the seq it has; a batch of only such events writes nothing. Each appended event is
-- notified as weft_append_task_event always did: the event itself when its note fits NOTIFY's
-- 8,000 bytes, otherwise its place. The answer is each event's seq, in the order given.
CREATE FUNCTION weft_append_task_events(
  p_workflow_ids text[], p_event_keys text[], p_event_types text[], p_agent_ids text[],
  p_messages text[], p_payloads jsonb[], p_created_ats timestamptz[], p_channel text
) RETURNS bigint[] LANGUAGE plpgsql AS $$
DECLARE
  v_seqs bigint[] := '{}';
  v_workflows text[] := '{}';
  v_locked_seqs bigint[] := '{}';
  v_last_seqs bigint[] := '{}';
  v_created boolean[] := '{}';
  v_w integer;
  v_seq bigint;
  v_note text;
BEGIN
  FOR v_i IN 1 .. coalesce(cardinality(p_event_keys), 0) LOOP
    v_w := array_position(v_workflows, p_workflow_ids[v_i]);
    IF v_w IS NULL THEN
      v_workflows := v_workflows || p_workflow_ids[v_i];
      v_w := cardinality(v_workflows);
      v_created[v_w] := false;
      SELECT c.last_seq INTO v_seq FROM task_event_counters c WHERE c.workflow_id = p_workflow_ids[v_i] FOR UPDATE;
      IF NOT FOUND THEN
        INSERT INTO task_event_counters (workflow_id, last_seq)
          SELECT p_workflow_ids[v_i], count(DISTINCT b.event_key) FROM unnest(p_workflow_ids, p_event_keys) AS b(workflow_id, event_key)
          WHERE b.workflow_id = p_workflow_ids[v_i]
          ON CONFLICT (workflow_id) DO NOTHING;
        IF FOUND THEN
          v_created[v_w] := true;
          v_seq := 0;
        ELSE
          -- Another transaction's first append committed the row meanwhile: this one follows it.
          SELECT c.last_seq INTO v_seq FROM task_event_counters c WHERE c.workflow_id = p_workflow_ids[v_i] FOR UPDATE;
        END IF;
      END IF;
      v_locked_seqs[v_w] := v_seq;
      v_last_seqs[v_w] := v_seq;
    END IF;
    SELECT e.seq INTO v_seq FROM task_events e WHERE e.workflow_id = p_workflow_ids[v_i] AND e.event_key = p_event_keys[v_i];
    IF NOT FOUND THEN
      v_seq := v_last_seqs[v_w] + 1;
      v_last_seqs[v_w] := v_seq;
      INSERT INTO task_events (workflow_id, seq, event_key, event_type, agent_id, message, payload, created_at)
        VALUES (p_workflow_ids[v_i], v_seq, p_event_keys[v_i], p_event_types[v_i], p_agent_ids[v_i], p_messages[v_i], p_payloads[v_i], p_created_ats[v_i]);
      v_note := json_build_object('workflow_id', p_workflow_ids[v_i], 'seq', v_seq, 'event_key', p_event_keys[v_i], 'event_type', p_event_types[v_i],
                                  'agent_id', p_agent_ids[v_i], 'message', p_messages[v_i], 'payload', p_payloads[v_i], 'created_at', p_created_ats[v_i])::text;
      IF octet_length(v_note) > 7900 THEN
        v_note := json_build_object('workflow_id', p_workflow_ids[v_i], 'seq', v_seq)::text;
      END IF;
      PERFORM pg_notify(p_channel, v_note);
    END IF;
    v_seqs[v_i] := v_seq;
  END LOOP;
  FOR v_w IN 1 .. cardinality(v_workflows) LOOP
    IF NOT v_created[v_w] AND v_last_seqs[v_w] > v_locked_seqs[v_w] THEN
      UPDATE task_event_counters SET last_seq = v_last_seqs[v_w] WHERE workflow_id = v_workflows[v_w];
    END IF;
  END LOOP;
  RETURN v_seqs;
END
$$;

-- The single append, under the name and signature workers call it by, is a batch of one.
CREATE OR REPLACE FUNCTION weft_append_task_event(
  p_workflow_id text, p_event_key text, p_event_type text, p_agent_id text,
  p_message text, p_payload jsonb, p_created_at timestamptz, p_channel text
) RETURNS bigint LANGUAGE sql AS $$
  SELECT (weft_append_task_events(ARRAY[p_workflow_id], ARRAY[p_event_key], ARRAY[p_event_type], ARRAY[p_agent_id],
                                  ARRAY[p_message], ARRAY[p_payload], ARRAY[p_created_at], p_channel))[1]
$$;

-- A one-shot task's end (migration 027), with the agent's end and the task's final events appended as one batch.
CREATE OR REPLACE FUNCTION weft_end_task(
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
  -- The agent's end is appended here, where 027 appended it (so the counter is locked where it was),
  -- with the task's final events behind it in the same batch: their sequence numbers are the same.
  IF v_agent_ended > 0 THEN
    PERFORM weft_append_task_events(
      ARRAY[p_agent_event_workflow_id] || p_event_workflow_ids, ARRAY[p_agent_event_key] || p_event_keys, ARRAY[p_agent_event_type] || p_event_types,
      ARRAY[p_agent_event_agent_id] || p_event_agent_ids, ARRAY[p_agent_event_message] || p_event_messages, ARRAY[p_agent_event_payload] || p_event_payloads,
      array_fill(p_at, ARRAY[1 + cardinality(p_event_keys)]), p_channel);
  END IF;

  UPDATE approvals SET status = 'expired', decided_at = p_at WHERE task_id = p_task_id AND status = 'pending';
  UPDATE task_agents SET status = 'CANCELLED', error = 'the task ended first', completed_at = p_at WHERE task_id = p_task_id AND status = 'RUNNING';
  UPDATE budget_reservations SET settled_at = p_at WHERE task_id = p_task_id AND settled_at IS NULL;

  IF v_agent_ended = 0 THEN
    PERFORM weft_append_task_events(p_event_workflow_ids, p_event_keys, p_event_types, p_event_agent_ids, p_event_messages, p_event_payloads,
                                    array_fill(p_at, ARRAY[cardinality(p_event_keys)]), p_channel);
  END IF;
END
$$;

-- Down Migration
CREATE OR REPLACE FUNCTION weft_append_task_event(
  p_workflow_id text, p_event_key text, p_event_type text, p_agent_id text,
  p_message text, p_payload jsonb, p_created_at timestamptz, p_channel text
) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  v_seq bigint;
  v_note text;
BEGIN
  INSERT INTO task_event_counters AS c (workflow_id, last_seq) VALUES (p_workflow_id, 0)
    ON CONFLICT (workflow_id) DO UPDATE SET last_seq = c.last_seq
    RETURNING last_seq INTO v_seq;
  PERFORM 1 FROM task_events e WHERE e.workflow_id = p_workflow_id AND e.event_key = p_event_key;
  IF FOUND THEN
    RETURN (SELECT e.seq FROM task_events e WHERE e.workflow_id = p_workflow_id AND e.event_key = p_event_key);
  END IF;
  v_seq := v_seq + 1;
  UPDATE task_event_counters SET last_seq = v_seq WHERE workflow_id = p_workflow_id;
  INSERT INTO task_events (workflow_id, seq, event_key, event_type, agent_id, message, payload, created_at)
    VALUES (p_workflow_id, v_seq, p_event_key, p_event_type, p_agent_id, p_message, p_payload, p_created_at);
  v_note := json_build_object('workflow_id', p_workflow_id, 'seq', v_seq, 'event_key', p_event_key, 'event_type', p_event_type,
                              'agent_id', p_agent_id, 'message', p_message, 'payload', p_payload, 'created_at', p_created_at)::text;
  IF octet_length(v_note) > 7900 THEN
    v_note := json_build_object('workflow_id', p_workflow_id, 'seq', v_seq)::text;
  END IF;
  PERFORM pg_notify(p_channel, v_note);
  RETURN v_seq;
END
$$;

CREATE OR REPLACE FUNCTION weft_end_task(
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

DROP FUNCTION weft_append_task_events(text[], text[], text[], text[], text[], jsonb[], timestamptz[], text);
