-- Up Migration

-- Which tenant a session id belongs to: the first tenant to use it (a task submitted in it, or a
-- SessionService session) claims it for good, so another tenant naming the same id finds nothing.
CREATE TABLE session_tenants (
  session_id text PRIMARY KEY,
  tenant_id  text NOT NULL,
  claimed_at timestamptz NOT NULL DEFAULT now()
);

INSERT INTO session_tenants (session_id, tenant_id)
  SELECT session_id, tenant_id FROM conversations
  ON CONFLICT DO NOTHING;
INSERT INTO session_tenants (session_id, tenant_id)
  SELECT DISTINCT ON (session_id) session_id, tenant_id FROM tasks WHERE session_id <> '' ORDER BY session_id, created_at
  ON CONFLICT DO NOTHING;

-- Down Migration
DROP TABLE session_tenants;
