-- Up Migration

-- Keys may expire, and every change to a key (revoked, expiry moved, deleted) is announced so that
-- every API process forgets it at once and ends its open streams.
ALTER TABLE api_keys ADD COLUMN expires_at timestamptz;
CREATE INDEX api_keys_tenant ON api_keys (tenant_id, created_at);

CREATE FUNCTION weft_api_key_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('weft_api_keys', coalesce(NEW.key_id, OLD.key_id));
  RETURN NULL;
END
$$;

CREATE TRIGGER api_key_changed AFTER UPDATE OR DELETE ON api_keys
  FOR EACH ROW EXECUTE FUNCTION weft_api_key_changed();

-- Down Migration
DROP TRIGGER api_key_changed ON api_keys;
DROP FUNCTION weft_api_key_changed();
DROP INDEX api_keys_tenant;
ALTER TABLE api_keys DROP COLUMN expires_at;
