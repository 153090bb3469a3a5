import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { createServiceClient, type ServiceClient } from '../../protos/clients';
import type { GrpcServer } from '../grpc/grpc-server';
import { methodTypes, toJson } from '../../protos/json-mapping';
import { grpcRequestOf, metadataOf, uncarriableHeaderOf } from './http-mapping';
import { httpErrorOf } from '../http/http-errors';
import { openApiDocument, openApiPath } from './openapi';
import { fullServiceNames, restRoutes, shannonStreamRoute, shannonWebSocketRoute, streamRoute, withSlashedIdsEscaped } from './routes';
import { serveTaskEvents } from './sse';
import { serveTaskEventsOverWebSocket } from './task-events-ws';
import fastifyWebsocket from '@fastify/websocket';
import { registerToolRoutes, type ToolRouteDeps } from './tool-routes';
import { httpsOptions, type TlsMaterial } from '../grpc/tls';
import { log } from '../../core/telemetry/logger';
import { authorizationOf } from '../http/credentials';
import type { AdapterContext, RequestParts } from '../shannon/route-adapter';
import { registerShannonRoutes, shannonRoutes, type ShannonDeps } from '../shannon';
import { fromGrpcFailure } from '../grpc/grpc-errors';
import type { Authenticator } from '../tasks/auth';
import { registerOpenAiRoutes } from '../openai/openai-routes';
import type { OpenAiDeps } from '../openai/completion-task';

// The REST and SSE gateway: HTTP/JSON in front of the gRPC services of the front port, like
// grpc-gateway. It calls their handlers in process, through the same checks, authentication and
// telemetry as the port's calls, so validation, tenancy and errors are exactly those of the gRPC
// API; streams it follows over the port's private socket.

export interface RestGateway {
  port: number;
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

async function refuseUnauthenticated(auth: Authenticator, request: FastifyRequest, reply: FastifyReply) {
  try {
    await auth.identify(authorizationOf(request.headers));
  } catch (err) {
    const { httpStatus, body } = httpErrorOf(fromGrpcFailure(err));
    return reply.code(httpStatus).send(body);
  }
}

/** A task's events as server-sent events (Weft's path and Shannon's) and over a WebSocket (Shannon's). */
function registerStreamRoutes(app: FastifyInstance, streaming: ServiceClient<'streaming'>, options: RestGatewayOptions): void {
  for (const route of [streamRoute, shannonStreamRoute]) {
    app.get<{ Params: Record<string, string>; Querystring: Record<string, unknown> }>(route.path, (request, reply) =>
      serveTaskEvents(route, streaming, options.sseKeepAliveMs, request, reply),
    );
  }
  app.get<{ Params: Record<string, string>; Querystring: Record<string, unknown> }>(
    shannonWebSocketRoute.path,
    // A caller without a key is refused in the handshake (401), before the socket opens.
    { websocket: true, preValidation: (request, reply) => refuseUnauthenticated(options.shannon.auth, request, reply) },
    (socket, request) => serveTaskEventsOverWebSocket(shannonWebSocketRoute, streaming, options.sseKeepAliveMs, socket, request),
  );
}

/** Weft's REST routes, each one call of the front port's services in process, with Shannon's shapes where a route has them. */
function registerRestRoutes(app: FastifyInstance, options: RestGatewayOptions): void {
  for (const route of restRoutes) {
    const service = fullServiceNames[route.service];
    const { request: requestType, response: responseType } = methodTypes(service, route.rpc);
    app.route<{ Params: Record<string, string>; Querystring: Record<string, unknown> }>({
      method: route.method,
      url: route.path,
      handler: async (request, reply) => {
        try {
          const metadata = metadataOf(request.headers);
          const adapter = { ...options.shannon, authorization: authorizationOf(request.headers) };
          const sent: RequestParts = { params: request.params, query: request.query, body: request.body };
          const parts = route.shannon?.request ? await route.shannon.request(sent, adapter) : sent;
          const grpcRequest = grpcRequestOf(requestType, { ...parts, queryFields: route.query ?? [] });
          const response = await options.frontServices(service, route.rpc, grpcRequest, metadata, options.callDeadlineMs);
          const json = toJson(responseType, response);
          if (!route.shannon?.respond) return json;
          const adapted = await route.shannon.respond(json, adapter, sent);
          return reply
            .code(adapted.status ?? 200)
            .headers(adapted.headers ?? {})
            .send(adapted.body);
        } catch (err) {
          const { httpStatus, body } = httpErrorOf(fromGrpcFailure(err));
          return reply.code(httpStatus).send(body);
        }
      },
    });
  }
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
  const openApi = openApiDocument();
  // Every route, SSE included, refuses headers it could not pass on before doing anything else.
  app.addHook('onRequest', async (request, reply) => {
    const problem = uncarriableHeaderOf(request.headers);
    if (problem) return reply.code(400).send({ error: problem, code: 'INVALID_ARGUMENT', status: 'STATUS_CODE_ERROR' });
  });

  app.addHook('onSend', rateLimitHeaders(options.shannon.auth));
  registerRestRoutes(app, options);
  registerStreamRoutes(app, streaming, options);
  registerToolRoutes(app, options.toolDiscovery);
  registerShannonRoutes(app, shannonRoutes, options.shannonRoutes);
  registerOpenAiRoutes(app, options.openAi);
  app.get(openApiPath, async () => openApi);
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
    close: async () => {
      await app.close();
      streaming.close();
    },
  };
}
