-- Up Migration

-- The durable event log of each task: a gap-free sequence per workflow. The counter row is locked
-- by each append until commit, so a rolled-back append leaves no hole and readers see seq order.
CREATE TABLE task_event_counters (
  workflow_id text PRIMARY KEY,
  last_seq    bigint NOT NULL
);

CREATE TABLE task_events (
  workflow_id text NOT NULL,
  seq         bigint NOT NULL,
  event_key   text NOT NULL,
  event_type  text NOT NULL,
  agent_id    text NOT NULL DEFAULT '',
  message     text NOT NULL DEFAULT '',
  payload     jsonb NOT NULL DEFAULT '{}',
  created_at  timestamptz NOT NULL,
  PRIMARY KEY (workflow_id, seq),
  UNIQUE (workflow_id, event_key)
);

-- Pending and decided approvals: what GetPendingApprovals lists and the audit of every decision.
CREATE TABLE approvals (
  approval_id     text PRIMARY KEY,
  task_id         text NOT NULL,
  workflow_id     text NOT NULL,
  tenant_id       text NOT NULL DEFAULT '',
  user_id         text NOT NULL DEFAULT '',
  session_id      text NOT NULL DEFAULT '',
  query           text NOT NULL,
  kind            text NOT NULL CHECK (kind IN ('plan', 'tool')),
  proposed_action jsonb NOT NULL,
  reason          text NOT NULL,
  status          text NOT NULL CHECK (status IN ('pending', 'approved', 'rejected', 'expired')),
  requested_at    timestamptz NOT NULL,
  expires_at      timestamptz NOT NULL,
  decided_at      timestamptz,
  decided_by      text NOT NULL DEFAULT '',
  feedback        text NOT NULL DEFAULT '',
  modified_action text NOT NULL DEFAULT ''
);
CREATE INDEX approvals_pending ON approvals (tenant_id, status, requested_at);

-- Each agent of a task, written with its child run's lifecycle changes.
CREATE TABLE task_agents (
  task_id      text NOT NULL,
  agent_id     text NOT NULL,
  run_id       text NOT NULL,
  status       text NOT NULL,
  result       text NOT NULL DEFAULT '',
  error        text NOT NULL DEFAULT '',
  started_at   timestamptz NOT NULL,
  completed_at timestamptz,
  PRIMARY KEY (task_id, agent_id)
);

-- Usage of every model step, keyed by the step's record so a retried step is never counted twice.
CREATE TABLE task_usage (
  task_id           text NOT NULL,
  step_key          text NOT NULL,
  agent_id          text NOT NULL,
  model             text NOT NULL,
  prompt_tokens     integer NOT NULL,
  completion_tokens integer NOT NULL,
  total_tokens      integer NOT NULL,
  cost_usd          double precision NOT NULL,
  recorded_at       timestamptz NOT NULL,
  PRIMARY KEY (task_id, step_key)
);

ALTER TABLE tasks ADD COLUMN progress double precision NOT NULL DEFAULT 0;
ALTER TABLE tasks ADD COLUMN plan jsonb;

-- Down Migration
ALTER TABLE tasks DROP COLUMN plan;
ALTER TABLE tasks DROP COLUMN progress;
DROP TABLE task_usage;
DROP TABLE task_agents;
DROP TABLE approvals;
DROP TABLE task_events;
DROP TABLE task_event_counters;
