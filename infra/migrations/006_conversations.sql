-- Up Migration

-- SessionService and ai.AIService sessions: the runtime session plus who owns it, its context, its
-- lifetime and its history. Closing one ends its runtime session in the same transaction, so running
-- work sees it.
CREATE TABLE conversations (
  session_id   text PRIMARY KEY REFERENCES runtime_sessions (session_id),
  tenant_id    text NOT NULL,
  user_id      text NOT NULL,
  context      jsonb NOT NULL DEFAULT '{}',
  max_history  integer NOT NULL CHECK (max_history > 0),
  model        text NOT NULL DEFAULT '',
  bot_username text NOT NULL DEFAULT '',
  created_at   timestamptz NOT NULL,
  last_active  timestamptz NOT NULL,
  expires_at   timestamptz NOT NULL,
  closed_at    timestamptz
);
CREATE INDEX conversations_user ON conversations (tenant_id, user_id, created_at DESC);

-- A session's history in order; only the newest max_history messages are kept.
CREATE TABLE conversation_messages (
  position    bigserial PRIMARY KEY,
  session_id  text NOT NULL REFERENCES conversations (session_id),
  message_id  text NOT NULL,
  role        text NOT NULL CHECK (role IN ('user', 'assistant', 'system')),
  content     text NOT NULL,
  tokens_used integer NOT NULL DEFAULT 0,
  metadata    jsonb NOT NULL DEFAULT '{}',
  created_at  timestamptz NOT NULL,
  UNIQUE (session_id, message_id)
);

-- Down Migration
DROP TABLE conversation_messages;
DROP TABLE conversations;
