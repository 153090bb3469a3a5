import path from 'node:path';
import protobuf from 'protobufjs';
import { allProtoFiles } from '../../protos/load';
import { byCodePoint, cell, code, generatedPage, table } from './markdown';

// docs/reference/grpc.md from the .proto files under protos/ and their comments: every service
// with its calls, then every message and enum of Weft's packages, each with its fields.

const protosDir = path.resolve(__dirname, '..', '..', 'protos');

function loadProtos(): protobuf.Root {
  const root = new protobuf.Root();
  // Imports resolve under protos/; google/protobuf/* come with protobufjs.
  root.resolvePath = (_origin, target) => (target.startsWith('google/protobuf/') || path.isAbsolute(target) ? target : path.join(protosDir, target));
  root.loadSync(
    allProtoFiles.map((file) => path.join(protosDir, file)),
    { keepCase: true, alternateCommentMode: true },
  );
  root.resolveAll();
  return root;
}

const nameOf = (object: protobuf.ReflectionObject) => object.fullName.replace(/^\./, '');
/** An anchor both GitHub and VitePress keep as written (headings' own slugs differ between them on dots). */
const anchorOf = (type: protobuf.ReflectionObject) => nameOf(type).replace(/\./g, '-');
const isWefts = (type: protobuf.ReflectionObject) => !type.fullName.startsWith('.google.');

function typeLink(type: protobuf.Type | protobuf.Enum | null, name: string): string {
  if (!type) return code(name);
  return isWefts(type) ? `[${nameOf(type)}](#${anchorOf(type)})` : code(nameOf(type));
}

const comment = (object: { comment: string | null }) => cell(object.comment ?? '');

function serviceSection(service: protobuf.Service): string[] {
  const rows = service.methodsArray.map((method) => {
    method.resolve();
    const request = `${method.requestStream ? 'stream ' : ''}${typeLink(method.resolvedRequestType, method.requestType)}`;
    const response = `${method.responseStream ? 'stream ' : ''}${typeLink(method.resolvedResponseType, method.responseType)}`;
    return [code(method.name), request, response, comment(method)];
  });
  return [`### ${nameOf(service)}`, '', comment(service), '', table(['Call', 'Request', 'Response', 'What it does'], rows), ''];
}

function fieldType(field: protobuf.Field): string {
  field.resolve();
  const resolved = field.resolvedType as protobuf.Type | protobuf.Enum | null;
  if (field instanceof protobuf.MapField) return `map&lt;${field.keyType}, ${resolved ? typeLink(resolved, field.type) : code(field.type)}&gt;`;
  const base = resolved ? typeLink(resolved, field.type) : code(field.type);
  return field.repeated ? `repeated ${base}` : base;
}

/** A message's or enum's section: an anchor both renderers keep, its name, its comment, then its table. */
function typeSection(type: protobuf.Type | protobuf.Enum, body: string): string[] {
  return [`<a id="${anchorOf(type)}"></a>`, '', `### ${nameOf(type)}`, '', comment(type), '', body, ''];
}

function messageSection(type: protobuf.Type): string[] {
  const rows = type.fieldsArray.map((field) => [code(field.name), String(field.id), fieldType(field), comment(field)]);
  return typeSection(type, rows.length > 0 ? table(['Field', 'Number', 'Type', 'What it is'], rows) : '(no fields)');
}

function enumSection(type: protobuf.Enum): string[] {
  const rows = Object.entries(type.values).map(([name, value]) => [code(name), String(value), cell(type.comments[name] ?? '')]);
  return typeSection(type, table(['Value', 'Number', 'What it means'], rows));
}

/** Every service, message and enum under a namespace, nested ones included, in declaration order. */
function collect(namespace: protobuf.NamespaceBase, found: { services: protobuf.Service[]; types: protobuf.Type[]; enums: protobuf.Enum[] }): void {
  for (const nested of namespace.nestedArray) {
    if (!isWefts(nested)) continue;
    if (nested instanceof protobuf.Service) found.services.push(nested);
    else if (nested instanceof protobuf.Type) found.types.push(nested);
    else if (nested instanceof protobuf.Enum) found.enums.push(nested);
    if (nested instanceof protobuf.Namespace || nested instanceof protobuf.Type) collect(nested, found);
  }
}

export function grpcReference(): string {
  const found = { services: [] as protobuf.Service[], types: [] as protobuf.Type[], enums: [] as protobuf.Enum[] };
  collect(loadProtos(), found);
  const byName = (a: protobuf.ReflectionObject, b: protobuf.ReflectionObject) => byCodePoint(a.fullName, b.fullName);
  return generatedPage(
    'gRPC API',
    'the .proto files under protos/',
    [
      "Weft serves Shannon's gRPC API (`shannon.*`, and `ai.AIService`) with Shannon's field numbers and JSON names, so",
      "Shannon's clients work unchanged. Every call needs an API key (`authorization: Bearer <key>` metadata) unless",
      'authentication is off. Server reflection is on, so `grpcurl` needs no `.proto` files.',
      '',
      '| Port | Services |',
      '| --- | --- |',
      '| 50052 | `shannon.orchestrator.OrchestratorService`, `shannon.orchestrator.StreamingService`, `shannon.session.SessionService`, `ai.AIService` |',
      '| 50051 | `shannon.agent.AgentService` |',
      '| 8000 | `shannon.llm.LLMService` |',
      '',
      'Every gRPC port also serves `grpc.health.v1.Health` and server reflection.',
    ],
    [
      '## Services',
      '',
      ...found.services.sort(byName).flatMap(serviceSection),
      '## Messages',
      '',
      ...found.types.sort(byName).flatMap(messageSection),
      '## Enums',
      '',
      ...found.enums.sort(byName).flatMap(enumSection),
    ],
  );
}
