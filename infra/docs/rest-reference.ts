import { byCodePoint, cell, code, generatedPage, table } from './markdown';

// docs/reference/rest.md rendered from an OpenAPI 3.1 document: the one the API serves at
// /openapi.json (generate-references.ts builds it as the API does).

interface Schema {
  type?: string | string[];
  $ref?: string;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  description?: string;
  enum?: unknown[];
  oneOf?: Schema[];
  anyOf?: Schema[];
}
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: Schema;
}
interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: Schema }> }>;
}
interface OpenApi {
  info?: { title?: string; version?: string };
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
}

const methods = ['get', 'post', 'put', 'patch', 'delete'];

function schemaText(schema: Schema | undefined): string {
  if (!schema) return '';
  if (schema.$ref) return code(schema.$ref.replace('#/components/schemas/', ''));
  if (schema.enum) return `one of ${schema.enum.map((v) => code(String(v))).join(', ')}`;
  if (schema.type === 'array') return `array of ${schemaText(schema.items) || 'any'}`;
  const alternatives = schema.oneOf ?? schema.anyOf;
  if (alternatives) return alternatives.map(schemaText).join(' or ');
  return code(Array.isArray(schema.type) ? schema.type.join(' | ') : (schema.type ?? 'any'));
}

/** A body's fields (the request's, or the answer's) as a table; `title` names whose. */
function fieldsSection(title: string, content: Record<string, { schema?: Schema }> | undefined): string[] {
  if (!content) return [];
  const [mediaType, { schema } = {}] = Object.entries(content)[0] ?? [];
  if (!mediaType) return [];
  const properties = Object.entries(schema?.properties ?? {});
  if (properties.length === 0) return [`${title} (${code(mediaType)}): ${schemaText(schema) || 'any'}`, ''];
  return [
    `${title} (${code(mediaType)}):`,
    '',
    table(
      ['Field', 'Type', 'Notes'],
      properties.map(([name, field]) => [
        code(name),
        schemaText(field),
        cell([schema?.required?.includes(name) ? 'required' : '', field.description ?? ''].filter(Boolean).join('; ')),
      ]),
    ),
    '',
  ];
}

function operationSection(path: string, method: string, operation: Operation): string[] {
  const lines = [`### ${method.toUpperCase()} ${code(path)}`, '', cell([operation.summary, operation.description].filter(Boolean).join('. ')), ''];
  if (operation.operationId) lines.push(`Operation: ${code(operation.operationId)}`, '');
  const parameters = operation.parameters ?? [];
  if (parameters.length > 0)
    lines.push(
      table(
        ['Parameter', 'In', 'Type', 'Notes'],
        parameters.map((p) => [code(p.name), p.in, schemaText(p.schema), cell([p.required ? 'required' : '', p.description ?? ''].filter(Boolean).join('; '))]),
      ),
      '',
    );
  lines.push(...fieldsSection('Body', operation.requestBody?.content));
  const responses = Object.entries(operation.responses ?? {});
  const answer = responses.find(([status]) => status < '400');
  if (answer) lines.push(...fieldsSection(`Answer ${answer[0]}`, answer[1].content));
  if (responses.length > 0)
    lines.push(
      table(
        ['Status', 'Means', 'Body'],
        responses.map(([status, response]) => {
          const body = Object.entries(response.content ?? {})[0];
          return [status, cell(response.description ?? ''), body ? `${code(body[0])} ${schemaText(body[1].schema)}` : ''];
        }),
      ),
      '',
    );
  return lines;
}

export function restReference(document: OpenApi): string {
  const operations = Object.entries(document.paths)
    .sort(([a], [b]) => byCodePoint(a, b))
    .flatMap(([path, item]) => methods.filter((method) => item[method]).map((method) => ({ path, method, operation: item[method]! })));
  const byTag = new Map<string, typeof operations>();
  for (const entry of operations) {
    const tag = entry.operation.tags?.[0] ?? 'other';
    byTag.set(tag, [...(byTag.get(tag) ?? []), entry]);
  }
  const schemas = Object.entries(document.components?.schemas ?? {}).sort(([a], [b]) => byCodePoint(a, b));
  return generatedPage(
    'REST API',
    'the OpenAPI document the API serves at /openapi.json',
    [
      "The HTTP port listens on 8080 (`WEFT_HTTP_PORT`) and serves every HTTP route: Weft's REST and SSE routes, Shannon's",
      "gateway routes, tool discovery and OpenAI's `/v1` API. Every route but the health checks and this document takes an",
      "API key (`Authorization: Bearer <key>`, or Shannon's `X-API-Key: <key>`). Weft's REST routes are each one call of the",
      "[gRPC API](grpc.md), their bodies its proto messages in JSON with the `.proto` field names. Errors answer Shannon's",
      '`{"error": "...", "code": "NOT_FOUND", "status": "STATUS_CODE_ERROR"}` with the matching HTTP status, and OpenAI\'s',
      'routes OpenAI\'s `{"error": {"message", "type", "param", "code"}}`.',
      '',
      `This page renders the document a running API serves at \`/openapi.json\` (${document.info?.title ?? 'Weft'} ${document.info?.version ?? ''}):`,
      `${operations.length} operations on ${Object.keys(document.paths).length} paths.`,
    ],
    [
      ...[...byTag.entries()].flatMap(([tag, entries]) => [`## ${tag}`, '', ...entries.flatMap((e) => operationSection(e.path, e.method, e.operation))]),
      '## Schemas',
      '',
      table(
        ['Schema', 'Fields'],
        schemas.map(([name, schema]) => [
          code(name),
          cell(
            Object.entries(schema.properties ?? {})
              .map(([field, type]) => `${field}: ${schemaText(type)}`)
              .join(', ') || schemaText(schema),
          ),
        ]),
      ),
    ],
  );
}
