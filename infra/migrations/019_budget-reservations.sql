-- Up Migration

-- A model step reserves its estimated spend before it calls the model, keyed by the step (a retried
-- step finds its reservation), and settles when its usage is recorded or its task ends. Budgets
-- count what was spent plus what is reserved and not settled, so parallel agents cannot all pass
-- the same check and overspend together.
CREATE TABLE budget_reservations (
  task_id text NOT NULL,
  step_key text NOT NULL,
  tenant_id text NOT NULL,
  agent_id text NOT NULL,
  tokens bigint NOT NULL,
  cost_usd double precision NOT NULL,
  reserved_at timestamptz NOT NULL,
  settled_at timestamptz,
  PRIMARY KEY (task_id, step_key)
);
CREATE INDEX budget_reservations_open_by_tenant ON budget_reservations (tenant_id) WHERE settled_at IS NULL;

-- Down Migration
DROP TABLE budget_reservations;
