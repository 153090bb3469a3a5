-- Up Migration

-- A runtime tool source belongs to the tenant whose admin registered it: only that tenant's agents
-- get its tools. NULL: a platform source for every tenant (platform_admin only). Sources registered
-- before this migration were offered to everyone, and stay platform sources.
ALTER TABLE tool_sources ADD COLUMN tenant_id text;

-- Down Migration
ALTER TABLE tool_sources DROP COLUMN tenant_id;
