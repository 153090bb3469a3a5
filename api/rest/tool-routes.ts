import type { FastifyInstance } from 'fastify';
import type { Pool } from 'pg';
import { ZodError } from 'zod';
import type { Principal } from '../../core/auth/api-keys';
import type { ToolRegistry } from '../../core/tools/registry';
import { ToolError, type ToolMetadata } from '../../core/tools/tool';
import { deleteToolSource, listToolSources, saveToolSource, toolSourceKey, toolSourceOf } from '../../core/tools/tool-source-store';
import { checkRuntimeSource, type RuntimeSourceRules } from '../../core/tools/runtime-source-rules';
import { hasRole, requireRole, type Authenticator } from '../tasks/auth';
import { conflict, invalid, notFound } from '../tasks/task-errors';
import { httpErrorOf } from '../http/http-errors';
import { authorizationOf } from '../http/credentials';

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

export function registerToolRoutes(app: FastifyInstance, deps: ToolRouteDeps): void {
  const toolNamed = (name: string, tenantId: string) => {
    const tool = deps.tools.get(name, tenantId);
    if (!tool) throw notFound(`tool ${name} not found`);
    return tool;
  };
  const route = <T>(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    answer: (request: { params: Record<string, string>; query: Record<string, unknown>; body: unknown; principal: Principal }) => T | Promise<T>,
  ) =>
    app.route<{ Params: Record<string, string>; Querystring: Record<string, unknown> }>({
      method,
      url: path,
      handler: async (request, reply) => {
        try {
          const principal = await deps.auth.authenticate(authorizationOf(request.headers));
          return await answer({ params: request.params, query: request.query, body: request.body, principal });
        } catch (err) {
          // The same statuses and messages as a gRPC call would carry.
          const { httpStatus, body } = httpErrorOf(err);
          return reply.code(httpStatus).send(body);
        }
      },
    });

  route('GET', '/tools/list', ({ query, principal }) => {
    const category = typeof query.category === 'string' && query.category ? query.category : undefined;
    return {
      tools: deps.tools
        .list(principal.tenantId)
        .filter((tool) => !category || tool.category === category)
        .map(seedMetadata),
    };
  });
  route('GET', '/tools/:name/schema', ({ params, principal }) => ({ name: params.name, parameters: toolNamed(params.name!, principal.tenantId).parameters }));
  route('GET', '/tools/:name/metadata', ({ params, principal }) => seedMetadata(toolNamed(params.name!, principal.tenantId)));

  route('GET', '/tools/sources', async ({ principal }) => {
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
  });
  route('POST', '/tools/sources', async ({ body, principal }) => {
    const { kind, config, scope } = (body ?? {}) as { kind?: unknown; config?: unknown; scope?: unknown };
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
  });
  route('DELETE', '/tools/sources/:name', async ({ params, query, principal }) => {
    const tenantId = sourceScope(principal, query.scope, 'removing');
    if (!(await deleteToolSource(deps.pool, params.name!, tenantId))) throw notFound(`tool source ${params.name} not found`);
    return { name: params.name, removed: true };
  });
}

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
