import type { ServiceClient } from '../../protos/clients';
import type { GrpcServer } from '../grpc/grpc-server';
import { fieldSchemaOf, jsonSchemaOf, messageType, methodTypes, toJson } from '../../protos/json-mapping';
import { grpcRequestOf, metadataOf } from './http-mapping';
import { shannonErrors } from '../http/http-errors';
import type { HttpRoute, JsonSchema } from '../http/http-route';
import { authorizationOf } from '../http/credentials';
import { fromGrpcFailure } from '../grpc/grpc-errors';
import type { AdapterContext, RequestParts } from '../shannon/route-adapter';
import { fullServiceNames, restRoutes, shannonStreamRoute, shannonWebSocketRoute, streamRoute, type RestRoute, type StreamRoute } from './routes';
import { serveTaskEvents } from './sse';
import { serveTaskEventsOverWebSocket } from './task-events-ws';
import { z } from 'zod';

// Weft's REST routes and a task's event streams in the one route table: each a call of the front
// port's gRPC services, which authenticate the caller from the request's credentials. Request and
// answer schemas are the protos' messages, in their JSON mapping.

export interface GrpcRouteDeps {
  /** The front port's unary services, answered in process (GrpcServer.invoke). */
  frontServices: GrpcServer['invoke'];
  callDeadlineMs: number;
  /** What Shannon's request and response shapes need beyond the gRPC call (api/shannon/). */
  shannon: Omit<AdapterContext, 'authorization'>;
}

export interface StreamRouteDeps {
  /** The front port's StreamingService (over its private socket). */
  streaming: ServiceClient<'streaming'>;
  keepAliveMs: number;
}

const typesOf = (route: RestRoute) => methodTypes(fullServiceNames[route.service], route.rpc);

const componentOf = (schema: JsonSchema, components: Record<string, JsonSchema>): JsonSchema =>
  typeof schema.$ref === 'string' ? (components[schema.$ref.replace('#/components/schemas/', '')] ?? schema) : schema;

/** A proto message's schema with what Shannon's shape adds: properties merged, in nested objects and array items too. */
function merged(base: JsonSchema, added: JsonSchema, components: Record<string, JsonSchema>): JsonSchema {
  const from = componentOf(base, components);
  if (from.type === 'array' && added.type === 'array') return { ...from, items: merged(from.items as JsonSchema, added.items as JsonSchema, components) };
  if (from.type !== 'object' || added.type !== 'object') return added;
  const properties = { ...(from.properties as Record<string, JsonSchema> | undefined) };
  for (const [name, schema] of Object.entries((added.properties ?? {}) as Record<string, JsonSchema>)) {
    properties[name] = properties[name] ? merged(properties[name], schema, components) : schema;
  }
  return { ...from, properties };
}

/** The route's proto message, with the Shannon shape's fields when it has them. */
function withShape(message: () => JsonSchema, components: Record<string, JsonSchema>, added: z.ZodObject | undefined, io: 'input' | 'output'): JsonSchema {
  if (!added) return message();
  return merged(message(), z.toJSONSchema(added, { target: 'draft-2020-12', io }) as JsonSchema, components);
}

/** A REST route: one gRPC call, with Shannon's shapes where the route has them. */
function grpcHttpRoute(route: RestRoute): HttpRoute<GrpcRouteDeps> {
  const shape = route.shannon?.schemas;
  return {
    method: route.method,
    path: route.path,
    summary: route.summary,
    tag: route.service,
    operationId: route.operationId ?? route.rpc,
    auth: 'grpc_door',
    errors: shannonErrors,
    ...(route.query
      ? {
          query: (components) =>
            withShape(
              () => ({
                type: 'object',
                properties: Object.fromEntries(route.query!.map((name) => [name, fieldSchemaOf(typesOf(route).request.fields[name]!, components)])),
              }),
              components,
              shape?.query,
              'input',
            ),
        }
      : {}),
    ...(route.body
      ? {
          body: { schema: (components) => withShape(() => jsonSchemaOf(typesOf(route).request, components), components, shape?.body, 'input'), required: true },
        }
      : {}),
    answer: {
      ...(shape?.answerStatus ? { status: shape.answerStatus } : {}),
      description: 'OK',
      schema: (components) => withShape(() => jsonSchemaOf(typesOf(route).response, components), components, shape?.answer, 'output'),
    },
    async handle({ request }, reply, deps) {
      const service = fullServiceNames[route.service];
      const { request: requestType, response: responseType } = typesOf(route);
      try {
        const adapter = { ...deps.shannon, authorization: authorizationOf(request.headers) };
        const sent: RequestParts = { params: request.params, query: request.query, body: request.body };
        const parts = route.shannon?.request ? await route.shannon.request(sent, adapter) : sent;
        const grpcRequest = grpcRequestOf(requestType, { ...parts, queryFields: route.query ?? [] });
        const response = await deps.frontServices(service, route.rpc, grpcRequest, metadataOf(request.headers), deps.callDeadlineMs);
        const json = toJson(responseType, response);
        if (!route.shannon?.respond) return json;
        const adapted = await route.shannon.respond(json, adapter, sent);
        return reply
          .code(adapted.status ?? 200)
          .headers(adapted.headers ?? {})
          .send(adapted.body);
      } catch (err) {
        throw fromGrpcFailure(err);
      }
    },
  };
}

export const grpcHttpRoutes: readonly HttpRoute<GrpcRouteDeps>[] = restRoutes.map(grpcHttpRoute);

const streamQuery = (route: StreamRoute) =>
  z.object(
    Object.fromEntries(
      route.query.map((name) => [
        name,
        name === 'types' ? z.string().describe('comma-separated event types').optional() : name === 'workflow_id' ? z.string() : z.string().optional(),
      ]),
    ),
  );
const taskUpdateSchema = (components: Parameters<typeof jsonSchemaOf>[1]) => jsonSchemaOf(messageType('shannon.orchestrator.TaskUpdate'), components);

/** A task's event stream as server-sent events (Weft's path and Shannon's). */
const sseRoute = (route: StreamRoute, operationId: string): HttpRoute<StreamRouteDeps> => ({
  method: 'GET',
  path: route.path,
  summary: 'Server-sent events of a task from its durable event log, then live; resume with the Last-Event-ID header',
  tag: 'streaming',
  operationId,
  auth: 'grpc_door',
  errors: shannonErrors,
  query: streamQuery(route),
  headers: z.object({ 'Last-Event-ID': z.string().describe('the id of the last event received').optional() }),
  answer: {
    description: 'event: <type>, id: <stream id>, data: a TaskUpdate; ": keep-alive" comments between events',
    contentType: 'text/event-stream',
    schema: taskUpdateSchema,
  },
  handle: ({ request }, reply, deps) => serveTaskEvents(route, deps.streaming, deps.keepAliveMs, request, reply),
});

export const streamHttpRoutes: readonly HttpRoute<StreamRouteDeps>[] = [
  sseRoute(streamRoute, 'StreamTaskExecution'),
  sseRoute(shannonStreamRoute, 'StreamTaskExecutionByQuery'),
  {
    method: 'GET',
    path: shannonWebSocketRoute.path,
    summary:
      "A WebSocket of the task's events: one TaskUpdate JSON per message, as on /api/v1/stream/sse; closes 1000 once they are over, 4000 + the HTTP status after an error",
    tag: 'streaming',
    operationId: 'StreamTaskExecutionOverWebSocket',
    auth: 'grpc_door',
    errors: shannonErrors,
    query: streamQuery(shannonWebSocketRoute),
    answer: { status: 101, description: 'switching to the WebSocket protocol' },
    handleSocket: (socket, request, deps) => serveTaskEventsOverWebSocket(shannonWebSocketRoute, deps.streaming, deps.keepAliveMs, socket, request),
  },
];
