import { z } from 'zod';
import { parseJsonList } from '../json-list-setting';
import type { SecretSource } from '../../secrets';
import type { OutboundHttp } from '../outbound/outbound-http';
import { readLimited } from '../outbound/outbound-http';
import { ToolError, sourcedToolName, toolMetadata, type Idempotency, type JsonSchema, type ToolContext, type ToolDefinition } from '../tool';
import type { OpenApiDocument } from './openapi-spec';
import { vendorAdapter, type OutgoingRequest, type VendorAdapter } from './vendor-adapters';
import { log } from '../../telemetry/logger';

// One tool per operation of an OpenAPI spec: named `<source>_<operationId>`, described by its
// summary, its path, query and header parameters and its JSON request body (as `body`) making up
// the tool's JSON schema. Calls authenticate as the source says (bearer, API key in a header or
// the query, basic), with secrets read from the environment, and go through the outbound guard.
// With `per_user`, each call uses the calling user's own secret (<ENV>__<TENANT>__<USER>) and the
// tools are marked requires_auth: nobody's call runs on someone else's credentials.

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
        z.strictObject({ type: z.literal('bearer'), token_env: secretEnv, per_user: z.boolean().default(false) }),
        z.strictObject({
          type: z.literal('api_key'),
          in: z.enum(['header', 'query']),
          name: z.string().min(1),
          key_env: secretEnv,
          per_user: z.boolean().default(false),
        }),
        z.strictObject({ type: z.literal('basic'), username_env: secretEnv, password_env: secretEnv, per_user: z.boolean().default(false) }),
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

const envSegment = (value: string) => value.toUpperCase().replace(/[^A-Z0-9]/g, '_');

function authenticate(request: OutgoingRequest, source: OpenApiSource, secrets: SecretSource, caller: ToolContext): void {
  const auth = source.auth;
  if (!auth) return;
  const secret = (name: string) => {
    const variable = auth.per_user ? `${name}__${envSegment(caller.tenantId)}__${envSegment(caller.userId)}` : name;
    const value = secrets(variable);
    if (!value) {
      const whose = auth.per_user ? ` for ${caller.userId || 'this caller'} of tenant ${caller.tenantId}` : '';
      throw new ToolError('execution', `OpenAPI source ${source.name}: no credentials${whose} (${variable} is not set)`);
    }
    return value;
  };
  if (auth.type === 'bearer') request.headers.authorization = `Bearer ${secret(auth.token_env)}`;
  else if (auth.type === 'basic')
    request.headers.authorization = `Basic ${Buffer.from(`${secret(auth.username_env)}:${secret(auth.password_env)}`).toString('base64')}`;
  else if (auth.in === 'header') request.headers[auth.name.toLowerCase()] = secret(auth.key_env);
  else request.url.searchParams.set(auth.name, secret(auth.key_env));
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

const idempotencyHeader = 'idempotency-key';

/** Reads are idempotent; a write is keyed when the operation takes an Idempotency-Key header, else at most once. */
function idempotencyOf(method: string, takesKey: boolean): Idempotency {
  if (!['post', 'put', 'patch', 'delete'].includes(method)) return 'idempotent';
  return takesKey ? 'keyed' : 'at_most_once';
}

export function openApiTools(spec: OpenApiDocument, source: OpenApiSource, outbound: OutboundHttp, secrets: SecretSource): ToolDefinition[] {
  const serverUrl = source.base_url ?? spec.servers?.[0]?.url;
  if (!serverUrl) throw new ToolError('validation', `OpenAPI source ${source.name}: the spec names no server; set base_url`);
  // A relative server URL is relative to where the spec came from.
  const base = new URL(serverUrl, source.spec_url ?? 'http://invalid/');
  const registered = source.vendor ? vendorAdapter(source.vendor) : undefined;
  if (source.vendor && !registered) {
    log().warn(
      { source: source.name, vendor: source.vendor },
      `OpenAPI source ${source.name}: vendor adapter ${source.vendor} is not available; its tools run without one`,
    );
  }
  const adapter: VendorAdapter = registered ?? {};

  return Object.entries(spec.paths).flatMap(([path, item]) =>
    methods.flatMap((method): ToolDefinition[] => {
      const operation = item[method] as Operation | undefined;
      if (!operation) return [];
      const operationId = operation.operationId ?? `${method}_${path}`;
      const declared = [...((item.parameters as Parameter[] | undefined) ?? []), ...(operation.parameters ?? [])].filter((p) => p.in !== 'cookie');
      // An Idempotency-Key header is Weft's to fill, never the model's.
      const keyHeader = declared.find((p) => p.in === 'header' && p.name.toLowerCase() === idempotencyHeader);
      const parameters = declared.filter((p) => p !== keyHeader);
      const idempotency = idempotencyOf(method, Boolean(keyHeader));
      const json = operation.requestBody?.content?.['application/json'];
      const body = json ? { schema: json.schema ?? {}, required: operation.requestBody?.required ?? false } : undefined;
      return [
        {
          ...toolMetadata({
            name: sourcedToolName(source.name, operationId),
            version: '1.0.0',
            description: operation.summary ?? operation.description ?? `${method.toUpperCase()} ${path}`,
            category: `openapi:${source.name}`,
            parameters: parametersSchema(parameters, body),
            rateLimitPerMinute: source.rate_limit ?? 60,
            costPerUse: source.cost_per_use ?? 0,
            requiresAuth: source.auth?.per_user ?? false,
            idempotency,
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
            if (keyHeader && context.idempotencyKey) request.headers[idempotencyHeader] = context.idempotencyKey;
            if (body && args.body !== undefined) request.body = args.body;
            request = adapter.request?.(operationId, request, context.promptParams ?? {}) ?? request;
            authenticate(request, source, secrets, context);
            const response = await outbound.fetch(
              request.url,
              {
                method: request.method,
                headers: { ...request.headers, ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}) },
                ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
                ...(context.signal ? { signal: context.signal } : {}),
              },
              { once: idempotency === 'at_most_once' },
            );
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
