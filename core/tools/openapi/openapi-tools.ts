import { z } from 'zod';
import { parseJsonList } from '../json-list-setting';
import type { OutboundHttp } from '../outbound/outbound-http';
import { readLimited } from '../outbound/outbound-http';
import { ToolError, toolMetadata, type JsonSchema, type ToolDefinition } from '../tool';
import type { OpenApiDocument } from './openapi-spec';
import { vendorAdapter, type OutgoingRequest, type VendorAdapter } from './vendor-adapters';

// One tool per operation of an OpenAPI spec: named `<source>_<operationId>`, described by its
// summary, its path, query and header parameters and its JSON request body (as `body`) making up
// the tool's JSON schema. Calls authenticate as the source says (bearer, API key in a header or
// the query, basic), with secrets read from the environment, and go through the outbound guard.

const secretEnv = z.string().min(1);
export const openApiSourceSchema = z
  .strictObject({
    name: z.string().regex(/^[A-Za-z0-9_-]{1,32}$/),
    spec_url: z.string().url().optional(),
    spec_file: z.string().min(1).optional(),
    /** Overrides the spec's first server. */
    base_url: z.string().url().optional(),
    auth: z
      .discriminatedUnion('type', [
        z.strictObject({ type: z.literal('bearer'), token_env: secretEnv }),
        z.strictObject({ type: z.literal('api_key'), in: z.enum(['header', 'query']), name: z.string().min(1), key_env: secretEnv }),
        z.strictObject({ type: z.literal('basic'), username_env: secretEnv, password_env: secretEnv }),
      ])
      .optional(),
    vendor: z.string().min(1).optional(),
    rate_limit: z.number().int().nonnegative().optional(),
    cost_per_use: z.number().nonnegative().optional(),
  })
  .refine((source) => Boolean(source.spec_url) !== Boolean(source.spec_file), { message: 'give exactly one of spec_url and spec_file' });
export type OpenApiSource = z.infer<typeof openApiSourceSchema>;

/** WEFT_OPENAPI_SOURCES: a JSON array of sources. */
export function parseOpenApiSources(json: string | undefined): OpenApiSource[] {
  return parseJsonList('WEFT_OPENAPI_SOURCES', json, openApiSourceSchema);
}

const methods = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;
const maxResponseBytes = 256 * 1024;

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  description?: string;
  schema?: JsonSchema;
}

interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: JsonSchema }> };
}

const toolNameOf = (source: string, operation: string) => `${source}_${operation}`.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);

function parametersSchema(parameters: Parameter[], body: { schema: JsonSchema; required: boolean } | undefined): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const parameter of parameters) {
    properties[parameter.name] = { ...(parameter.schema ?? { type: 'string' }), ...(parameter.description ? { description: parameter.description } : {}) };
    if (parameter.required || parameter.in === 'path') required.push(parameter.name);
  }
  if (body) {
    properties.body = body.schema;
    if (body.required) required.push('body');
  }
  return { type: 'object', properties, required, additionalProperties: false };
}

function secret(env: NodeJS.ProcessEnv, name: string, source: string): string {
  const value = env[name];
  if (!value) throw new ToolError('execution', `OpenAPI source ${source}: ${name} is not set`);
  return value;
}

function authenticate(request: OutgoingRequest, source: OpenApiSource, env: NodeJS.ProcessEnv): void {
  const auth = source.auth;
  if (!auth) return;
  if (auth.type === 'bearer') request.headers.authorization = `Bearer ${secret(env, auth.token_env, source.name)}`;
  else if (auth.type === 'basic') {
    const credentials = `${secret(env, auth.username_env, source.name)}:${secret(env, auth.password_env, source.name)}`;
    request.headers.authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
  } else if (auth.in === 'header') request.headers[auth.name.toLowerCase()] = secret(env, auth.key_env, source.name);
  else request.url.searchParams.set(auth.name, secret(env, auth.key_env, source.name));
}

async function responseBody(response: Awaited<ReturnType<OutboundHttp['fetch']>>): Promise<unknown> {
  const text = await readLimited(response, maxResponseBytes);
  if (!(response.headers.get('content-type') ?? '').includes('json') || text === '') return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function openApiTools(spec: OpenApiDocument, source: OpenApiSource, outbound: OutboundHttp, env: NodeJS.ProcessEnv): ToolDefinition[] {
  const serverUrl = source.base_url ?? spec.servers?.[0]?.url;
  if (!serverUrl) throw new ToolError('validation', `OpenAPI source ${source.name}: the spec names no server; set base_url`);
  // A relative server URL is relative to where the spec came from.
  const base = new URL(serverUrl, source.spec_url ?? 'http://invalid/');
  const adapter: VendorAdapter = source.vendor ? vendorAdapter(source.vendor) : {};

  return Object.entries(spec.paths).flatMap(([path, item]) =>
    methods.flatMap((method): ToolDefinition[] => {
      const operation = item[method] as Operation | undefined;
      if (!operation) return [];
      const operationId = operation.operationId ?? `${method}_${path}`;
      const parameters = [...((item.parameters as Parameter[] | undefined) ?? []), ...(operation.parameters ?? [])].filter((p) => p.in !== 'cookie');
      const json = operation.requestBody?.content?.['application/json'];
      const body = json ? { schema: json.schema ?? {}, required: operation.requestBody?.required ?? false } : undefined;
      return [
        {
          ...toolMetadata({
            name: toolNameOf(source.name, operationId),
            version: '1.0.0',
            description: operation.summary ?? operation.description ?? `${method.toUpperCase()} ${path}`,
            category: `openapi:${source.name}`,
            parameters: parametersSchema(parameters, body),
            rateLimitPerMinute: source.rate_limit ?? 60,
            costPerUse: source.cost_per_use ?? 0,
            requiresAuth: Boolean(source.auth),
          }),
          async execute(args, context) {
            const filledPath = path.replace(/\{([^}]+)\}/g, (_m, name: string) => encodeURIComponent(String(args[name])));
            const url = new URL(`${base.pathname.replace(/\/$/, '')}${filledPath}`, base);
            let request: OutgoingRequest = { method: method.toUpperCase(), url, headers: { accept: 'application/json' } };
            for (const parameter of parameters) {
              const value = args[parameter.name];
              if (value === undefined) continue;
              if (parameter.in === 'query') for (const one of Array.isArray(value) ? value : [value]) url.searchParams.append(parameter.name, String(one));
              if (parameter.in === 'header') request.headers[parameter.name.toLowerCase()] = String(value);
            }
            if (body && args.body !== undefined) request.body = args.body;
            request = adapter.request?.(operationId, request) ?? request;
            authenticate(request, source, env);
            const response = await outbound.fetch(request.url, {
              method: request.method,
              headers: { ...request.headers, ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}) },
              ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
              ...(context.signal ? { signal: context.signal } : {}),
            });
            const answer = await responseBody(response);
            if (response.status >= 400) {
              const detail = typeof answer === 'string' ? answer : JSON.stringify(answer);
              throw new ToolError('network', `HTTP ${response.status} from ${request.url.origin}: ${detail.slice(0, 500)}`);
            }
            return { status: response.status, body: adapter.response?.(operationId, answer) ?? answer };
          },
        },
      ];
    }),
  );
}
