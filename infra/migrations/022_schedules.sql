-- Up Migration

-- Who owns each schedule, and the fields its owner gave that Temporal does not keep as given (a cron
-- expression becomes calendars there; the task's context becomes its input). A schedule itself (when
-- it runs, its task, paused or not, its runs) is a Temporal Schedule, read from Temporal: what an
-- operator changes there is what Weft reports.
CREATE TABLE schedules (
  schedule_id text PRIMARY KEY,
  tenant_id text NOT NULL,
  user_id text NOT NULL,
  name text NOT NULL,
  description text NOT NULL DEFAULT '',
  given jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX schedules_by_owner ON schedules (tenant_id, user_id, created_at DESC);

-- Down Migration

DROP TABLE schedules;
