-- Up Migration

-- Exact-match model response cache (LLMService enable_caching): keyed by a hash of the normalised
-- request or the caller's cache_key, per tenant, with an expiry. Only complete answers are stored.
CREATE TABLE llm_response_cache (
  tenant_id  text NOT NULL,
  cache_key  text NOT NULL,
  response   jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, cache_key)
);

-- Down Migration
DROP TABLE llm_response_cache;
