-- Up Migration

-- Per-minute limits shared by every API and worker process (rate-limiter-flexible's Postgres store):
-- one row per limited key, e.g. a model provider's requests or tokens.
CREATE TABLE weft_rate_limits (
  key    varchar(255) PRIMARY KEY,
  points integer NOT NULL DEFAULT 0,
  expire bigint
);

-- Down Migration
DROP TABLE weft_rate_limits;
