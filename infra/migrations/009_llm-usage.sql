-- Up Migration

-- A model step answered from the response cache spent nothing; the task reports that it was served so.
ALTER TABLE task_usage ADD COLUMN cache_hit boolean NOT NULL DEFAULT false;
ALTER TABLE tasks ADD COLUMN cache_hit boolean NOT NULL DEFAULT false;

-- Usage of LLMService calls made outside any task step: per tenant, with the caller's user, session
-- and task (from the request's metadata) so it can be attributed and summed.
CREATE TABLE llm_usage (
  id                bigserial PRIMARY KEY,
  tenant_id         text NOT NULL,
  user_id           text NOT NULL,
  session_id        text NOT NULL,
  task_id           text NOT NULL,
  model             text NOT NULL,
  provider          text NOT NULL,
  prompt_tokens     integer NOT NULL,
  completion_tokens integer NOT NULL,
  total_tokens      integer NOT NULL,
  cost_usd          double precision NOT NULL,
  cache_hit         boolean NOT NULL,
  recorded_at       timestamptz NOT NULL
);
CREATE INDEX llm_usage_by_session ON llm_usage (tenant_id, session_id, recorded_at);
CREATE INDEX llm_usage_by_task ON llm_usage (tenant_id, task_id);

-- Down Migration
DROP TABLE llm_usage;
ALTER TABLE tasks DROP COLUMN cache_hit;
ALTER TABLE task_usage DROP COLUMN cache_hit;
