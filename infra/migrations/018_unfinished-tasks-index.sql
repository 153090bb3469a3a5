-- Up Migration

-- The API's /metrics counts unfinished tasks by status and mode at every scrape: a partial index
-- keeps that a read of the tasks still running, not of every task ever run.
CREATE INDEX tasks_unfinished ON tasks (status, mode) WHERE status IN ('QUEUED', 'RUNNING');

-- Down Migration
DROP INDEX tasks_unfinished;
