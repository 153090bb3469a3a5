-- Up Migration

-- A response whose model called tools the client runs ends there; the client's next response,
-- with their outputs, continues the same task: several responses per task, each reading the
-- task's log after the point it began (after_seq).
ALTER TABLE openai_responses DROP CONSTRAINT openai_responses_task_id_key;
ALTER TABLE openai_responses ADD COLUMN after_seq bigint NOT NULL DEFAULT 0;
CREATE INDEX openai_responses_task ON openai_responses (task_id);

-- Down Migration

DROP INDEX openai_responses_task;
ALTER TABLE openai_responses DROP COLUMN after_seq;
ALTER TABLE openai_responses ADD CONSTRAINT openai_responses_task_id_key UNIQUE (task_id);
