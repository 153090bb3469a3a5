-- Up Migration

-- Sessions move active -> ended -> purged. A purged row stays as a tombstone so the id is never reused.
CREATE TABLE runtime_sessions (
  session_id text PRIMARY KEY,
  status     text NOT NULL CHECK (status IN ('active', 'ended', 'purged')),
  created_at timestamptz NOT NULL,
  ended_at   timestamptz,
  purged_at  timestamptz
);

CREATE TABLE runtime_runs (
  run_id              text PRIMARY KEY,
  agent_id            text NOT NULL,
  session_id          text,
  parent_run_id       text,
  predecessor_run_id  text,
  labels              jsonb NOT NULL DEFAULT '{}',
  status              text NOT NULL CHECK (status IN ('running', 'suspended', 'completed', 'failed', 'canceled')),
  start_outcome       text NOT NULL CHECK (start_outcome IN ('proceed', 'stop')),
  cancellation_reason text NOT NULL DEFAULT '',
  started_at          timestamptz NOT NULL,
  updated_at          timestamptz NOT NULL
);
CREATE INDEX runtime_runs_session ON runtime_runs (session_id, status);
CREATE INDEX runtime_runs_parent ON runtime_runs (parent_run_id);
-- Only one successor may continue a suspended predecessor.
CREATE UNIQUE INDEX runtime_runs_one_successor ON runtime_runs (predecessor_run_id) WHERE predecessor_run_id IS NOT NULL;

-- Immutable, ordered records. Payloads are kept byte for byte so exact retries compare bytes.
CREATE TABLE runtime_run_records (
  record_id   bigserial PRIMARY KEY,
  run_id      text NOT NULL REFERENCES runtime_runs (run_id) ON DELETE CASCADE,
  event_key   text NOT NULL,
  agent_id    text NOT NULL,
  session_id  text,
  turn_id     text NOT NULL DEFAULT '',
  record_type text NOT NULL,
  payload     bytea NOT NULL,
  recorded_at timestamptz NOT NULL,
  UNIQUE (run_id, event_key)
);
CREATE INDEX runtime_run_records_session ON runtime_run_records (session_id, record_id) WHERE session_id IS NOT NULL;

-- Which record proved each lifecycle change first: a repeat of the change with another record conflicts.
CREATE TABLE runtime_run_lifecycle (
  run_id    text NOT NULL REFERENCES runtime_runs (run_id) ON DELETE CASCADE,
  change    text NOT NULL CHECK (change IN ('start', 'link', 'cancellation', 'suspension', 'terminal', 'stop')),
  subject   text NOT NULL DEFAULT '',
  record_id bigint NOT NULL,
  PRIMARY KEY (run_id, change, subject)
);

CREATE TABLE runtime_run_checkpoints (
  run_id     text NOT NULL REFERENCES runtime_runs (run_id) ON DELETE CASCADE,
  record_id  bigint NOT NULL,
  checkpoint bytea NOT NULL,
  PRIMARY KEY (run_id, record_id)
);

-- Weft's task index: what GetTaskStatus and ListTasks read. One row per submitted task.
CREATE TABLE tasks (
  task_id           text PRIMARY KEY,
  workflow_id       text NOT NULL UNIQUE,
  run_id            text NOT NULL,
  tenant_id         text NOT NULL DEFAULT '',
  user_id           text NOT NULL DEFAULT '',
  session_id        text NOT NULL DEFAULT '',
  query             text NOT NULL,
  mode              text NOT NULL,
  status            text NOT NULL,
  result            text NOT NULL DEFAULT '',
  error_message     text NOT NULL DEFAULT '',
  prompt_tokens     integer NOT NULL DEFAULT 0,
  completion_tokens integer NOT NULL DEFAULT 0,
  total_tokens      integer NOT NULL DEFAULT 0,
  cost_usd          double precision NOT NULL DEFAULT 0,
  model             text NOT NULL DEFAULT '',
  created_at        timestamptz NOT NULL,
  completed_at      timestamptz
);
CREATE INDEX tasks_user ON tasks (tenant_id, user_id, created_at DESC);
CREATE INDEX tasks_session ON tasks (tenant_id, session_id, created_at DESC);

-- Down Migration
DROP TABLE tasks;
DROP TABLE runtime_run_checkpoints;
DROP TABLE runtime_run_lifecycle;
DROP TABLE runtime_run_records;
DROP TABLE runtime_runs;
DROP TABLE runtime_sessions;
