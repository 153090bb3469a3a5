-- Up Migration

-- A response of OpenAI's Responses API is a Weft task: what the response echoes back (its model
-- name, instructions, the response it follows, metadata) is kept here, so any API process can
-- answer for it, and the conversation it continues is found by its id within the tenant.
CREATE TABLE openai_responses (
  response_id text PRIMARY KEY,
  tenant_id text NOT NULL,
  user_id text NOT NULL,
  task_id text NOT NULL UNIQUE,
  workflow_id text NOT NULL,
  session_id text NOT NULL,
  model text NOT NULL,
  request jsonb NOT NULL,
  created_at timestamptz NOT NULL
);

-- Down Migration

DROP TABLE openai_responses;
