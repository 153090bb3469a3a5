import { fieldSchemaOf, jsonSchemaOf, messageType, methodTypes } from '../../protos/json-mapping';
import { weftVersion } from '../../core/version';
import { fullServiceNames, restRoutes, shannonStreamRoute, shannonWebSocketRoute, streamRoute } from './routes';
import { shannonRoutes } from '../shannon';
import { openAiRoutes } from '../openai/openai-routes';

export const openApiPath = '/openapi.json';

const errorSchema = {
  type: 'object',
  properties: {
    error: { type: 'string', description: 'what was wrong' },
    code: { type: 'string', description: 'the gRPC status name, e.g. NOT_FOUND' },
    status: { type: 'string', enum: ['STATUS_CODE_ERROR', 'STATUS_CODE_TIMEOUT', 'STATUS_CODE_RATE_LIMITED'] },
  },
};

const errorResponses = Object.fromEntries(
  [
    ['400', 'invalid request'],
    ['401', 'no or bad API key'],
    ['403', "another tenant's resource, or a role is missing"],
    ['404', 'not found'],
    ['409', 'already exists, or not possible in the current state'],
    ['429', 'rate limited'],
    ['503', 'a dependency is unavailable'],
  ].map(([code, description]) => [code, { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } }]),
);

const openApiPathOf = (path: string) => path.replace(/:(\w+)/g, '{$1}').replace(/\*$/, '{path}');
const pathParams = (path: string) => [...[...path.matchAll(/:(\w+)/g)].map((m) => m[1]!), ...(path.endsWith('*') ? ['path'] : [])];

/** A task's event streams: server-sent events on Weft's path and Shannon's, and Shannon's WebSocket. */
function streamPaths(schemas: Record<string, Record<string, unknown>>): Record<string, Record<string, unknown>> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of [streamRoute, shannonStreamRoute]) {
    paths[openApiPathOf(route.path)] = {
      get: {
        operationId: route === streamRoute ? 'StreamTaskExecution' : 'StreamTaskExecutionByQuery',
        summary: 'Server-sent events of a task from its durable event log, then live; resume with the Last-Event-ID header',
        tags: ['streaming'],
        parameters: [
          { name: 'workflow_id', in: route === streamRoute ? 'path' : 'query', required: true, schema: { type: 'string' } },
          { name: 'types', in: 'query', schema: { type: 'string' }, description: 'comma-separated event types' },
          { name: 'last_event_id', in: 'query', schema: { type: 'string' } },
          { name: 'last_stream_id', in: 'query', schema: { type: 'string' } },
          { name: 'Last-Event-ID', in: 'header', schema: { type: 'string' }, description: 'the id of the last event received' },
        ],
        responses: {
          '200': {
            description: 'event: <type>, id: <stream id>, data: a TaskUpdate; ": keep-alive" comments between events',
            content: { 'text/event-stream': { schema: jsonSchemaOf(messageType('shannon.orchestrator.TaskUpdate'), schemas) } },
          },
          ...errorResponses,
        },
      },
    };
  }

  paths[shannonWebSocketRoute.path] = {
    get: {
      operationId: 'StreamTaskExecutionOverWebSocket',
      summary:
        "A WebSocket of the task's events: one TaskUpdate JSON per message, as on /api/v1/stream/sse; closes 1000 once they are over, 4000 + the HTTP status after an error",
      tags: ['streaming'],
      parameters: ['workflow_id', 'types', 'last_event_id', 'last_stream_id'].map((name) => ({
        name,
        in: 'query',
        required: name === 'workflow_id',
        schema: { type: 'string' },
      })),
      responses: { '101': { description: 'switching to the WebSocket protocol' }, ...errorResponses },
    },
  };
  return paths;
}

/** OpenAI's routes (api/openai/): OpenAI's request and response bodies, and its error body. */
function openAiPaths(): Record<string, Record<string, unknown>> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of openAiRoutes) {
    paths[openApiPathOf(route.path)] = {
      [route.method.toLowerCase()]: {
        operationId: `${route.method.toLowerCase()} ${route.path}`,
        summary: route.summary,
        tags: ['openai'],
        parameters: pathParams(route.path).map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
        ...(route.method === 'POST' ? { requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } } } : {}),
        responses: {
          '200': { description: 'OK: JSON, or server-sent chunks with stream: true', content: { 'application/json': { schema: { type: 'object' } } } },
        },
      },
    };
  }
  return paths;
}

/** The OpenAPI 3.1 document of the REST gateway, generated from the route table and the protos. */
export function openApiDocument(): Record<string, unknown> {
  const schemas: Record<string, Record<string, unknown>> = { Error: errorSchema };
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of restRoutes) {
    const { request, response } = methodTypes(fullServiceNames[route.service], route.rpc);
    const parameters = [
      ...pathParams(route.path).map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
      ...(route.query ?? []).map((name) => ({ name, in: 'query', required: false, schema: fieldSchemaOf(request.fields[name]!, schemas) })),
    ];
    paths[openApiPathOf(route.path)] ??= {};
    paths[openApiPathOf(route.path)]![route.method.toLowerCase()] = {
      operationId: route.rpc,
      summary: route.summary,
      tags: [route.service],
      parameters,
      ...(route.body ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchemaOf(request, schemas) } } } } : {}),
      responses: { '200': { description: 'OK', content: { 'application/json': { schema: jsonSchemaOf(response, schemas) } } }, ...errorResponses },
    };
  }
  Object.assign(paths, streamPaths(schemas));

  // Shannon's gateway routes without a gRPC counterpart (api/shannon/): JSON in Shannon's shapes.
  for (const route of shannonRoutes) {
    paths[openApiPathOf(route.path)] ??= {};
    paths[openApiPathOf(route.path)]![route.method.toLowerCase()] = {
      operationId: `${route.method.toLowerCase()} ${route.path}`,
      summary: route.summary,
      tags: [route.tag],
      ...(route.public ? { security: [] } : {}),
      parameters: [
        ...pathParams(route.path).map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
        ...(route.query ?? []).map((name) => ({ name, in: 'query', required: false, schema: { type: 'string' } })),
      ],
      ...(route.method === 'POST' ? { requestBody: { required: false, content: { 'application/json': { schema: { type: 'object' } } } } } : {}),
      responses: { '200': { description: 'OK', content: { 'application/json': { schema: { type: 'object' } } } }, ...errorResponses },
    };
  }

  Object.assign(paths, openAiPaths());

  return {
    openapi: '3.1.0',
    info: {
      title: 'Weft REST and SSE gateway',
      version: weftVersion,
      description: 'Each route is one gRPC call of the Shannon API; field names as in the .proto files.',
    },
    servers: [{ url: '/' }],
    security: [{ apiKey: [] }],
    paths,
    components: { schemas, securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'a Weft API key (weft keys create)' } } },
  };
}
