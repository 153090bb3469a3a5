import type { FastifyInstance } from 'fastify';
import type { ToolRegistry } from '../../core/tools/registry';
import type { ToolMetadata } from '../../core/tools/tool';
import type { Authenticator } from '../auth';
import { notFound, toServiceError } from '../grpc-errors';
import { httpErrorOf, metadataOf } from './http-mapping';

// The seed's tool discovery over HTTP: GET /tools/list (?category=), /tools/{name}/schema and
// /tools/{name}/metadata, in the seed's field names. Same API keys as every other route.

export interface ToolRouteDeps {
  auth: Authenticator;
  tools: ToolRegistry;
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
  };
}

export function registerToolRoutes(app: FastifyInstance, deps: ToolRouteDeps): void {
  const toolNamed = (name: string) => {
    const tool = deps.tools.get(name);
    if (!tool) throw notFound(`tool ${name} not found`);
    return tool;
  };
  const route = <T>(path: string, answer: (params: Record<string, string>, query: Record<string, unknown>) => T) =>
    app.get<{ Params: Record<string, string>; Querystring: Record<string, unknown> }>(path, async (request, reply) => {
      try {
        await deps.auth.authenticate(metadataOf(request.headers));
        return answer(request.params, request.query);
      } catch (err) {
        // The same statuses and messages as a gRPC call would carry.
        const { httpStatus, body } = httpErrorOf(toServiceError(err, (line) => console.error(`tool discovery ${line}`)));
        return reply.code(httpStatus).send(body);
      }
    });

  route('/tools/list', (_params, query) => {
    const category = typeof query.category === 'string' && query.category ? query.category : undefined;
    return { tools: deps.tools.list().filter((tool) => !category || tool.category === category).map(seedMetadata) };
  });
  route('/tools/:name/schema', ({ name }) => ({ name, parameters: toolNamed(name!).parameters }));
  route('/tools/:name/metadata', ({ name }) => seedMetadata(toolNamed(name!)));
}
