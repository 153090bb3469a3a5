-- Up Migration

-- MCP servers and OpenAPI specs registered at runtime (REST /tools/sources, admins only). Every API
-- and worker process loads them at start and follows changes through the NOTIFY below.
CREATE TABLE tool_sources (
  name       text PRIMARY KEY,
  kind       text NOT NULL CHECK (kind IN ('mcp', 'openapi')),
  config     jsonb NOT NULL,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL
);

CREATE FUNCTION weft_tool_sources_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('weft_tool_sources', coalesce(NEW.name, OLD.name));
  RETURN NULL;
END
$$;

CREATE TRIGGER tool_sources_changed AFTER INSERT OR UPDATE OR DELETE ON tool_sources
  FOR EACH ROW EXECUTE FUNCTION weft_tool_sources_changed();

-- Down Migration
DROP TABLE tool_sources;
DROP FUNCTION weft_tool_sources_changed();
