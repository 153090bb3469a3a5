-- Up Migration

-- The append notification carries the event itself (when it fits NOTIFY's 8,000-byte limit), so
-- live readers deliver it without reading the log back; a larger one carries only its place, and
-- readers read the log as before.
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

-- Down Migration
CREATE OR REPLACE FUNCTION weft_append_task_event(
  p_workflow_id text, p_event_key text, p_event_type text, p_agent_id text,
  p_message text, p_payload jsonb, p_created_at timestamptz, p_channel text
) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  v_seq bigint;
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
  PERFORM pg_notify(p_channel, p_workflow_id || ':' || v_seq);
  RETURN v_seq;
END
$$;
