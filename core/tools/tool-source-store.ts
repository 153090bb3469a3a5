import type { Queryable } from '../db/transaction';
import { mcpServerSchema, type McpServerConfig } from './mcp/mcp-server';
import { createDestinationPolicy } from './outbound/destination-policy';
import { openApiSourceSchema, type OpenApiSource } from './openapi/openapi-tools';

// Tool sources registered at runtime, in Postgres (migration 010); the table's trigger notifies
// `toolSourcesChannel` on every change so each process follows them.

export const toolSourcesChannel = 'weft_tool_sources';

export type StoredToolSource = ({ name: string; kind: 'mcp'; config: McpServerConfig } | { name: string; kind: 'openapi'; config: OpenApiSource }) & {
  /** The tenant whose agents get the source's tools; absent: a platform source, for every tenant. */
  tenantId?: string;
};

/** A source's identity among all sources, configured or stored: "mcp:<name>" or "openapi:<name>". */
export const toolSourceKey = (kind: StoredToolSource['kind'], name: string) => `${kind}:${name}`;

export class ToolSourceExistsError extends Error {
  override name = 'ToolSourceExistsError';
  constructor(source: string) {
    super(`a tool source named ${source} already exists`);
  }
}

/** Validates a source as its kind's configuration; the name is the configuration's. */
export function toolSourceOf(kind: string, config: unknown, tenantId?: string): StoredToolSource {
  const scope = tenantId ? { tenantId } : {};
  if (kind === 'mcp') {
    const parsed = mcpServerSchema.parse(config);
    return { name: parsed.name, kind, config: parsed, ...scope };
  }
  if (kind === 'openapi') {
    const parsed = openApiSourceSchema.parse(config);
    return { name: parsed.name, kind, config: parsed, ...scope };
  }
  throw new Error(`kind must be "mcp" or "openapi", not ${JSON.stringify(kind)}`);
}

/** The hosts each kind of source may reach (MCP_ALLOWED_DOMAINS, OPENAPI_ALLOWED_DOMAINS). */
export interface SourceAllowlists {
  mcp: readonly string[];
  openapi: readonly string[];
}

/**
 * Refuses a source whose URLs its kind's allowlist and the address rules would refuse, before it
 * is stored, rather than at its first (and every later) connection attempt.
 */
export async function checkSourceDestinations(source: StoredToolSource, allowlists: SourceAllowlists): Promise<void> {
  const policy =
    source.kind === 'mcp'
      ? createDestinationPolicy('MCP_ALLOWED_DOMAINS', allowlists.mcp)
      : createDestinationPolicy('OPENAPI_ALLOWED_DOMAINS', allowlists.openapi);
  const urls = source.kind === 'mcp' ? [source.config.url] : [source.config.spec_url, source.config.base_url].filter((url): url is string => Boolean(url));
  for (const url of urls) await policy.checkDestination(new URL(url));
}

/** Source names are unique across tenants, since their tools' names are. */
export async function saveToolSource(db: Queryable, source: StoredToolSource, createdBy: string, at: Date): Promise<void> {
  const inserted = await db.query(
    'INSERT INTO tool_sources (name, kind, config, tenant_id, created_by, created_at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (name) DO NOTHING',
    [source.name, source.kind, JSON.stringify(source.config), source.tenantId ?? null, createdBy, at],
  );
  if (inserted.rowCount === 0) throw new ToolSourceExistsError(source.name);
}

/** Deletes a source of this scope (a tenant's own, or a platform source when `tenantId` is undefined); false when there is none. */
export async function deleteToolSource(db: Queryable, name: string, tenantId: string | undefined): Promise<boolean> {
  return ((await db.query('DELETE FROM tool_sources WHERE name = $1 AND tenant_id IS NOT DISTINCT FROM $2', [name, tenantId ?? null])).rowCount ?? 0) > 0;
}

/** Every stored source, or (for a tenant) its own and the platform's. */
export async function listToolSources(db: Queryable, visibleTo?: string): Promise<StoredToolSource[]> {
  const { rows } = await db.query<{ name: string; kind: string; config: unknown; tenant_id: string | null }>(
    'SELECT name, kind, config, tenant_id FROM tool_sources WHERE $1::text IS NULL OR tenant_id IS NULL OR tenant_id = $1 ORDER BY name',
    [visibleTo ?? null],
  );
  return rows.map((row) => toolSourceOf(row.kind, row.config, row.tenant_id ?? undefined));
}
