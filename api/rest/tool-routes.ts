import type { Pool } from 'pg';
import { z, ZodError } from 'zod';
import type { Principal } from '../../core/auth/api-keys';
import type { ToolRegistry } from '../../core/tools/registry';
import { ToolError, type ToolMetadata } from '../../core/tools/tool';
import { deleteToolSource, listToolSources, saveToolSource, toolSourceKey, toolSourceOf } from '../../core/tools/tool-source-store';
import { mcpServerSchema } from '../../core/tools/mcp/mcp-server';
import { openApiSourceSchema } from '../../core/tools/openapi/openapi-tools';
import { checkRuntimeSource, type RuntimeSourceRules } from '../../core/tools/runtime-source-rules';
import { hasRole, requireRole, type Authenticator } from '../tasks/auth';
import { conflict, invalid, notFound } from '../tasks/task-errors';
import { shannonErrors } from '../http/http-errors';
import type { HttpHandler, HttpRoute, RouteDescription } from '../http/http-route';

// The seed's tool discovery over HTTP: GET /tools/list (?category=), /tools/{name}/schema and
// /tools/{name}/metadata, in the seed's field names. Same API keys as every other route. Admins
// register MCP servers and OpenAPI specs at runtime at /tools/sources; every API and worker process
// picks them up (core/tools/stored-tool-sources.ts). A tenant's admin registers sources for its own
// agents; a platform_admin registers sources for every tenant (scope "platform").

export interface ToolRouteDeps {
  auth: Authenticator;
  tools: ToolRegistry;
  pool: Pool;
  /** Sources named in configuration; a runtime source may not take their names. */
  configuredSources: readonly string[];
  /** What runtime sources may reach and read, checked when they are registered. */
  sourceRules: RuntimeSourceRules;
}

/** The seed's ToolMetadata fields. */
function seedMetadata(tool: ToolMetadata) {
  return {
    name: tool.name,
    version: tool.version,
    description: tool.description,
    category: tool.category,
    parameters: tool.parameters,
    timeout_seconds: tool.timeoutMs / 1000,
    memory_limit_mb: tool.memoryLimitMb,
    rate_limit: tool.rateLimitPerMinute,
    cost_per_use: tool.costPerUse,
    dangerous: tool.dangerous,
    requires_auth: tool.requiresAuth,
    sandboxed: tool.sandboxed,
    session_aware: tool.sessionAware,
    idempotency: tool.idempotency,
  };
}

const toolMetadata = z.object({
  name: z.string(),
  version: z.string(),
  description: z.string(),
  category: z.string(),
  parameters: z.unknown().describe("the tool's parameters as JSON Schema"),
  timeout_seconds: z.number(),
  memory_limit_mb: z.number(),
  rate_limit: z.number(),
  cost_per_use: z.number(),
  dangerous: z.boolean(),
  requires_auth: z.boolean(),
  sandboxed: z.boolean(),
  session_aware: z.boolean(),
  idempotency: z.string(),
});
const sourceScopeSchema = z.enum(['tenant', 'platform']).optional().describe('platform: for every tenant (platform_admin)');
const newSource = z.union([
  z.object({ kind: z.literal('mcp'), config: mcpServerSchema, scope: sourceScopeSchema }),
  z.object({ kind: z.literal('openapi'), config: openApiSourceSchema, scope: sourceScopeSchema }),
]);
const sourceAnswer = z.object({ name: z.string(), kind: z.enum(['mcp', 'openapi']), scope: z.enum(['tenant', 'platform']) });

function toolNamed(deps: ToolRouteDeps, name: string, tenantId: string) {
  const tool = deps.tools.get(name, tenantId);
  if (!tool) throw notFound(`tool ${name} not found`);
  return tool;
}

/** A tool route: an API key's caller, Shannon's error body with the same statuses and messages as a gRPC call would carry. */
const toolRoute = (
  route: Pick<RouteDescription, 'method' | 'path' | 'summary' | 'query' | 'body' | 'answer'> & { handle: HttpHandler<ToolRouteDeps> },
): HttpRoute<ToolRouteDeps> => ({
  ...route,
  tag: 'tools',
  auth: 'api_key',
  errors: shannonErrors,
});

export const toolRoutes: readonly HttpRoute<ToolRouteDeps>[] = [
  toolRoute({
    method: 'GET',
    path: '/tools/list',
    summary: "The tools the caller's agents may use, in the seed's ToolMetadata fields (category: only those of one category)",
    query: z.object({ category: z.string().optional() }),
    answer: { description: 'OK', schema: z.object({ tools: z.array(toolMetadata) }) },
    handle: ({ request, principal }, _reply, deps) => {
      const category = typeof request.query.category === 'string' && request.query.category ? request.query.category : undefined;
      return {
        tools: deps.tools
          .list(principal.tenantId)
          .filter((tool) => !category || tool.category === category)
          .map(seedMetadata),
      };
    },
  }),
  toolRoute({
    method: 'GET',
    path: '/tools/:name/schema',
    summary: "A tool's parameters as JSON Schema",
    answer: { description: 'OK', schema: z.object({ name: z.string(), parameters: z.unknown() }) },
    handle: ({ request, principal }, _reply, deps) => ({
      name: request.params.name,
      parameters: toolNamed(deps, request.params.name!, principal.tenantId).parameters,
    }),
  }),
  toolRoute({
    method: 'GET',
    path: '/tools/:name/metadata',
    summary: "A tool's ToolMetadata",
    answer: { description: 'OK', schema: toolMetadata },
    handle: ({ request, principal }, _reply, deps) => seedMetadata(toolNamed(deps, request.params.name!, principal.tenantId)),
  }),
  toolRoute({
    method: 'GET',
    path: '/tools/sources',
    summary: "The MCP servers and OpenAPI specs registered at runtime: the tenant's (admin), or every tenant's (platform_admin)",
    answer: {
      description: 'OK',
      schema: z.object({
        sources: z.array(
          z.looseObject({ name: z.string(), kind: z.enum(['mcp', 'openapi']), scope: z.enum(['tenant', 'platform']), tenant_id: z.string().optional() }),
        ),
      }),
    },
    handle: async ({ principal }, _reply, deps) => {
      const everyTenant = hasRole(principal, 'platform_admin');
      if (!everyTenant) requireRole(principal, 'admin', 'listing tool sources');
      const sources = await listToolSources(deps.pool, everyTenant ? undefined : principal.tenantId);
      return {
        sources: sources.map(({ tenantId, ...source }) => ({
          ...source,
          scope: tenantId ? 'tenant' : 'platform',
          ...(everyTenant && tenantId ? { tenant_id: tenantId } : {}),
        })),
      };
    },
  }),
  toolRoute({
    method: 'POST',
    path: '/tools/sources',
    summary: 'Register an MCP server or an OpenAPI spec as a tool source, for the tenant (admin) or every tenant (scope platform, platform_admin)',
    body: { schema: newSource, required: true },
    answer: { description: 'OK', schema: sourceAnswer },
    handle: async ({ request, principal }, _reply, deps) => {
      const { kind, config, scope } = (request.body ?? {}) as { kind?: unknown; config?: unknown; scope?: unknown };
      const tenantId = sourceScope(principal, scope, 'registering');
      let source;
      try {
        source = toolSourceOf(String(kind), config, tenantId);
      } catch (err) {
        if (err instanceof ZodError) throw invalid(`config: ${err.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`);
        throw invalid((err as Error).message);
      }
      if (deps.configuredSources.includes(toolSourceKey(source.kind, source.name))) {
        throw conflict(`a configured tool source is named ${source.name}`);
      }
      await checkRuntimeSource(source, deps.sourceRules).catch((err: unknown) => {
        throw err instanceof ToolError ? invalid(`config: ${err.message}`) : err;
      });
      await saveToolSource(deps.pool, source, `${principal.tenantId}/${principal.userId}`, new Date());
      return { name: source.name, kind: source.kind, scope: tenantId ? 'tenant' : 'platform' };
    },
  }),
  toolRoute({
    method: 'DELETE',
    path: '/tools/sources/:name',
    summary: 'Remove a tool source registered at runtime',
    query: z.object({ scope: sourceScopeSchema }),
    answer: { description: 'OK', schema: z.object({ name: z.string(), removed: z.literal(true) }) },
    handle: async ({ request, principal }, _reply, deps) => {
      const tenantId = sourceScope(principal, request.query.scope, 'removing');
      if (!(await deleteToolSource(deps.pool, request.params.name!, tenantId))) throw notFound(`tool source ${request.params.name} not found`);
      return { name: request.params.name, removed: true };
    },
  }),
];

/**
 * Whose source a request is about: its tenant's (the admin role), or with scope "platform" every
 * tenant's (the platform_admin role). Undefined is the platform.
 */
function sourceScope(principal: Principal, scope: unknown, action: string): string | undefined {
  if (scope !== undefined && scope !== 'tenant' && scope !== 'platform') throw invalid('scope must be "tenant" or "platform"');
  if (scope === 'platform') {
    requireRole(principal, 'platform_admin', `${action} a tool source for every tenant`);
    return undefined;
  }
  requireRole(principal, 'admin', `${action} a tool source`);
  return principal.tenantId;
}
