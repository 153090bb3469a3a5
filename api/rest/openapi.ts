import { z } from 'zod';
import { weftVersion } from '../../core/version';
import type { JsonSchema, RouteDescription, RouteSchema } from '../http/http-route';
import { routeTable } from './route-table';

export const openApiPath = '/openapi.json';

const errorStatuses: [status: string, description: string][] = [
  ['400', 'invalid request'],
  ['401', 'no or bad API key'],
  ['403', "another tenant's resource, or a role is missing"],
  ['404', 'not found'],
  ['409', 'already exists, or not possible in the current state'],
  ['429', 'rate limited'],
  ['503', 'a dependency is unavailable'],
];

const openApiPathOf = (path: string) => path.replace(/:(\w+)/g, '{$1}').replace(/\*$/, '{path}');
const camelCased = (text: string) => text.replace(/[^A-Za-z0-9]+(.)?/g, (_, next: string | undefined) => (next ?? '').toUpperCase());
const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
/** `get /v1/models/:model` as getV1ModelsByModel: URL-safe, unique per method and path. */
const operationIdOf = (method: string, path: string) =>
  method.toLowerCase() +
  path
    .split('/')
    .filter(Boolean)
    .map((part) => (part === '*' ? 'ByPath' : part.startsWith(':') ? `By${capitalized(camelCased(part.slice(1)))}` : capitalized(camelCased(part))))
    .join('');
const pathParams = (path: string) => [...[...path.matchAll(/:(\w+)/g)].map((m) => m[1]!), ...(path.endsWith('*') ? ['path'] : [])];

/** A route's schema as JSON Schema (draft 2020-12, OpenAPI 3.1's), shared messages kept in `components`. */
function jsonSchema(schema: RouteSchema, components: Record<string, JsonSchema>, io: 'input' | 'output'): JsonSchema {
  if (typeof schema === 'function') return schema(components);
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' });
  return json;
}

/** The `in` parameters of an object schema's properties. */
function parametersOf(schema: RouteSchema | undefined, where: 'query' | 'header', components: Record<string, JsonSchema>) {
  if (!schema) return [];
  const object = jsonSchema(schema, components, 'input') as { properties?: Record<string, JsonSchema & { description?: string }>; required?: string[] };
  return Object.entries(object.properties ?? {}).map(([name, { description, ...property }]) => ({
    name,
    in: where,
    required: object.required?.includes(name) ?? false,
    ...(description ? { description } : {}),
    schema: property,
  }));
}

function operationOf(route: RouteDescription, components: Record<string, JsonSchema>): JsonSchema {
  components[route.errors.name] ??= jsonSchema(route.errors.schema, components, 'output');
  const errorBody = { content: { 'application/json': { schema: { $ref: `#/components/schemas/${route.errors.name}` } } } };
  const { answer } = route;
  return {
    operationId: route.operationId ?? operationIdOf(route.method, route.path),
    summary: route.summary,
    tags: [route.tag],
    ...(route.auth === 'public' ? { security: [] } : {}),
    parameters: [
      ...pathParams(route.path).map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
      ...parametersOf(route.query, 'query', components),
      ...parametersOf(route.headers, 'header', components),
    ],
    ...(route.body
      ? { requestBody: { required: route.body.required, content: { 'application/json': { schema: jsonSchema(route.body.schema, components, 'input') } } } }
      : {}),
    responses: {
      [String(answer.status ?? 200)]: {
        description: answer.description,
        ...(answer.schema ? { content: { [answer.contentType ?? 'application/json']: { schema: jsonSchema(answer.schema, components, 'output') } } } : {}),
      },
      ...Object.fromEntries(errorStatuses.map(([status, description]) => [status, { description, ...errorBody }])),
    },
  };
}

const refsIn = (value: unknown) => [...JSON.stringify(value).matchAll(/"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!);

/** The components the paths reach (a message merged with Shannon's fields is inlined, so its own component may not be). */
function reachable(paths: unknown, schemas: Record<string, JsonSchema>): Record<string, JsonSchema> {
  const used = new Set<string>();
  const pending = refsIn(paths);
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (used.has(name)) continue;
    used.add(name);
    pending.push(...refsIn(schemas[name]));
  }
  return Object.fromEntries(Object.entries(schemas).filter(([name]) => used.has(name)));
}

/** The OpenAPI 3.1 document of every HTTP route Weft serves, generated from the route table. */
export function openApiDocument(): Record<string, unknown> {
  const schemas: Record<string, JsonSchema> = {};
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routeTable) {
    paths[openApiPathOf(route.path)] ??= {};
    paths[openApiPathOf(route.path)]![route.method.toLowerCase()] = operationOf(route, schemas);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Weft HTTP API',
      version: weftVersion,
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      description:
        "Weft's REST and SSE routes (each one gRPC call of the Shannon API, field names as in the .proto files), Shannon's gateway routes, tool discovery, and OpenAI's /v1 API.",
    },
    servers: [{ url: '/' }],
    security: [{ apiKey: [] }],
    paths,
    components: {
      schemas: reachable(paths, schemas),
      securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'a Weft API key (weft keys create)' } },
    },
  };
}
