-- Up Migration

-- API keys for the front door. Only a SHA-256 of the secret is stored; the key itself is shown once.
CREATE TABLE api_keys (
  key_id        text PRIMARY KEY,
  secret_sha256 bytea NOT NULL,
  tenant_id     text NOT NULL,
  user_id       text NOT NULL,
  roles         text[] NOT NULL DEFAULT '{}',
  created_at    timestamptz NOT NULL DEFAULT now(),
  revoked_at    timestamptz
);

-- Down Migration
DROP TABLE api_keys;
