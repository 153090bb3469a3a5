-- Up Migration

-- appendRunRecord in one round trip: the same locks (session row, then run row), owner check,
-- exact-retry lookup, status check and insert that the store would otherwise send one by one.
-- The caller interprets `outcome` and compares an existing record field by field.
CREATE FUNCTION weft_append_run_record(
  p_run_id text, p_key text, p_agent_id text, p_session_id text, p_turn_id text,
  p_type text, p_payload bytea, p_recorded_at timestamptz
) RETURNS TABLE (
  outcome text, record_id bigint, agent_id text, session_id text, turn_id text,
  record_type text, payload bytea, recorded_at timestamptz
) LANGUAGE plpgsql AS $$
DECLARE
  v_session text;
  v_agent text;
  v_status text;
BEGIN
  -- Lock order as everywhere in the store: the run's session first, then the run.
  PERFORM 1 FROM runtime_sessions s
    WHERE s.session_id = (SELECT r.session_id FROM runtime_runs r WHERE r.run_id = p_run_id) FOR UPDATE;
  SELECT r.agent_id, r.session_id, r.status INTO v_agent, v_session, v_status
    FROM runtime_runs r WHERE r.run_id = p_run_id FOR UPDATE;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'run_not_found'::text, NULL::bigint, NULL::text, NULL::text, NULL::text, NULL::text, NULL::bytea, NULL::timestamptz;
    RETURN;
  END IF;
  IF v_agent <> p_agent_id OR coalesce(v_session, '') <> coalesce(p_session_id, '') THEN
    RETURN QUERY SELECT 'owner_mismatch'::text, NULL::bigint, NULL::text, NULL::text, NULL::text, NULL::text, NULL::bytea, NULL::timestamptz;
    RETURN;
  END IF;
  IF v_status = 'running' THEN
    RETURN QUERY
      INSERT INTO runtime_run_records AS rr (run_id, event_key, agent_id, session_id, turn_id, record_type, payload, recorded_at)
      VALUES (p_run_id, p_key, p_agent_id, p_session_id, p_turn_id, p_type, p_payload, p_recorded_at)
      ON CONFLICT (run_id, event_key) DO NOTHING
      RETURNING 'inserted'::text, rr.record_id, rr.agent_id, rr.session_id, rr.turn_id, rr.record_type, rr.payload, rr.recorded_at;
    IF FOUND THEN
      RETURN;
    END IF;
  END IF;
  -- The key is taken (or the run stopped): only an exact retry of an earlier record may succeed.
  RETURN QUERY SELECT 'exists'::text, rr.record_id, rr.agent_id, rr.session_id, rr.turn_id, rr.record_type, rr.payload, rr.recorded_at
    FROM runtime_run_records rr WHERE rr.run_id = p_run_id AND rr.event_key = p_key;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'run_not_active'::text, NULL::bigint, NULL::text, NULL::text, NULL::text, NULL::text, NULL::bytea, NULL::timestamptz;
  END IF;
END
$$;

-- Down Migration
DROP FUNCTION weft_append_run_record(text, text, text, text, text, text, bytea, timestamptz);
