import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { createServiceClient, type ServiceClient } from '../../protos/clients';
import type { GrpcServer } from '../grpc/grpc-server';
import { uncarriableHeaderOf } from './http-mapping';
import { openApiDocument, openApiPath } from './openapi';
import { withSlashedIdsEscaped } from './routes';
import fastifyWebsocket from '@fastify/websocket';
import { toolRoutes, type ToolRouteDeps } from './tool-routes';
import { httpsOptions, type TlsMaterial } from '../grpc/tls';
import { log } from '../../core/telemetry/logger';
import { authorizationOf } from '../http/credentials';
import type { AdapterContext } from '../shannon/route-adapter';
import { shannonHttpRoutes, type ShannonDeps } from '../shannon';
import type { Authenticator } from '../tasks/auth';
import { openAiRoutes } from '../openai/openai-routes';
import type { OpenAiDeps } from '../openai/completion-task';
import { registerHttpRoutes } from './route-registration';
import { grpcHttpRoutes, streamHttpRoutes } from './grpc-routes';
import { openApiRoute } from './openapi-route';

// The HTTP port: one Fastify app on which every door's routes (route-table.ts) are registered
// through one wrapper (route-registration.ts). Weft's REST routes call the front port's gRPC
// handlers in process, through the same checks, authentication and telemetry as the port's calls;
// their streams follow the port over its private socket.

export interface RegisteredRoute {
  method: string;
  /** As Fastify has it, with `:name` parameters. */
  path: string;
}

export interface RestGateway {
  port: number;
  /** Every route registered on the app (HEAD aside, which Fastify adds to each GET). */
  routes: readonly RegisteredRoute[];
  close(): Promise<void>;
}

export interface RestGatewayOptions {
  host: string;
  port: number;
  /** Where the gRPC front port's streams are reached (a private socket). */
  grpcAddress: string;
  /** The front port's unary services, answered in process (GrpcServer.invoke). */
  frontServices: GrpcServer['invoke'];
  maxBodyBytes: number;
  sseKeepAliveMs: number;
  callDeadlineMs: number;
  /** Tool discovery (/tools/...), answered from the registry. */
  toolDiscovery: ToolRouteDeps;
  /** HTTPS (and client certificates) with the gRPC ports' material. */
  tls?: TlsMaterial;
  /** What Shannon's request and response shapes need beyond the gRPC call (api/shannon/). */
  shannon: Omit<AdapterContext, 'authorization'>;
  /** What Shannon's own routes read (api/shannon/). */
  shannonRoutes: ShannonDeps;
  /** What OpenAI's routes read (api/openai/). */
  openAi: OpenAiDeps;
}

/** Shannon's rate-limit headers on every answer to a keyed caller, and Retry-After when the limit is reached. */
function rateLimitHeaders(auth: Authenticator) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    // A request refused for headers metadata cannot carry has no key to report on.
    if (uncarriableHeaderOf(request.headers)) return;
    const state = await auth.rateLimitOf(authorizationOf(request.headers));
    if (!state) return;
    void reply.headers({
      'x-ratelimit-limit': String(state.limit),
      'x-ratelimit-remaining': String(state.remaining),
      'x-ratelimit-reset': String(state.resetSeconds),
    });
    if (reply.statusCode === 429) void reply.header('retry-after', String(Math.max(1, state.resetSeconds)));
  };
}

export async function startRestGateway(options: RestGatewayOptions): Promise<RestGateway> {
  const streaming: ServiceClient<'streaming'> = createServiceClient('streaming', options.grpcAddress);
  const app = Fastify({
    bodyLimit: options.maxBodyBytes,
    rewriteUrl: (request) => withSlashedIdsEscaped(request.url ?? '/'),
    ...(options.tls ? { https: httpsOptions(options.tls) } : {}),
  });
  // Before any route: a plugin loaded later would build the routes before the error handlers below are set.
  await app.register(fastifyWebsocket);
  // A JSON content type with no body at all (a DELETE from some clients) is a request without a body.
  const json = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) =>
    body === '' ? done(null, undefined) : json(request, body as string, done),
  );
  // Every route, SSE included, refuses headers it could not pass on before doing anything else.
  app.addHook('onRequest', async (request, reply) => {
    const problem = uncarriableHeaderOf(request.headers);
    if (problem) return reply.code(400).send({ error: problem, code: 'INVALID_ARGUMENT', status: 'STATUS_CODE_ERROR' });
  });

  app.addHook('onSend', rateLimitHeaders(options.shannon.auth));
  const routes: RegisteredRoute[] = [];
  app.addHook('onRoute', ({ method, url }) => {
    for (const one of [method].flat()) if (one !== 'HEAD') routes.push({ method: one, path: url });
  });
  const auth = options.shannon.auth;
  const frontPort = { frontServices: options.frontServices, callDeadlineMs: options.callDeadlineMs, shannon: options.shannon };
  registerHttpRoutes(app, grpcHttpRoutes, frontPort, auth);
  registerHttpRoutes(app, streamHttpRoutes, { streaming, keepAliveMs: options.sseKeepAliveMs }, auth);
  registerHttpRoutes(app, toolRoutes, options.toolDiscovery, auth);
  registerHttpRoutes(app, shannonHttpRoutes, options.shannonRoutes, auth);
  registerHttpRoutes(app, openAiRoutes, options.openAi, auth);
  registerHttpRoutes(app, [openApiRoute], openApiDocument(), auth);
  app.setNotFoundHandler((request, reply) => {
    void reply
      .code(404)
      .send({ error: `no route ${request.method} ${request.url.split('?')[0]}; see ${openApiPath}`, code: 'NOT_FOUND', status: 'STATUS_CODE_ERROR' });
  });
  // Malformed JSON and oversized bodies, in the same shape as every other error.
  app.setErrorHandler((err: { statusCode?: number; message: string }, _request, reply) => {
    const httpStatus = err.statusCode && err.statusCode < 500 ? err.statusCode : 500;
    if (httpStatus === 500) log().error({ err }, 'REST gateway internal error');
    void reply.code(httpStatus).send({
      error: httpStatus === 500 ? 'internal error' : err.message,
      code: httpStatus === 413 ? 'RESOURCE_EXHAUSTED' : httpStatus === 500 ? 'INTERNAL' : 'INVALID_ARGUMENT',
      status: 'STATUS_CODE_ERROR',
    });
  });

  await app.listen({ host: options.host, port: options.port });
  const address = app.server.address();
  return {
    port: typeof address === 'object' && address ? address.port : options.port,
    routes,
    close: async () => {
      await app.close();
      streaming.close();
    },
  };
}
