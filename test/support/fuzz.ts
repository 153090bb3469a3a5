import * as grpc from '@grpc/grpc-js';
import type * as protobuf from 'protobufjs';
import { messageType, methodTypes } from '../../protos/json-mapping';

// Malformed and boundary requests for any RPC, built from its request descriptor, sent as raw bytes
// so that what a typed client cannot express (invalid UTF-8, unknown enum numbers, garbage) goes too.

export interface FuzzCase {
  name: string;
  bytes: Buffer;
  /** Over the server's message size limit. */
  oversized?: boolean;
  /** The codes the API documents for this class of input. */
  expected: ReadonlySet<grpc.status>;
}

/**
 * What a call whose input is odd but well formed (empty, huge, negative, a traversal, an emoji)
 * may answer: the RPC's own verdict on it. Never a hang, UNAVAILABLE (every dependency is up) or
 * UNAUTHENTICATED (the call has a key).
 */
export const verdicts: ReadonlySet<grpc.status> = new Set([
  grpc.status.OK,
  grpc.status.INVALID_ARGUMENT,
  grpc.status.NOT_FOUND,
  grpc.status.ALREADY_EXISTS,
  grpc.status.PERMISSION_DENIED,
  grpc.status.FAILED_PRECONDITION,
]);
const invalidArgument: ReadonlySet<grpc.status> = new Set([grpc.status.INVALID_ARGUMENT]);

/** docs/reference/errors.md: requests that do not decode, carry an unknown enum number or a NUL character are INVALID_ARGUMENT. */
const undecodable = /NUL|invalid UTF-8|unknown enum|negative enum/;

const expectedFor = (name: string) => (undecodable.test(name) ? invalidArgument : verdicts);

const utf8Marker = 'ZZINVALIDUTF8ZZ';
const hugeString = 'x'.repeat(200_000);

function scalarVariants(field: protobuf.Field): Array<[string, unknown]> {
  if (field.resolvedType && 'values' in field.resolvedType)
    return [
      ['unknown enum 99', 99],
      ['negative enum', -1],
    ];
  switch (field.type) {
    case 'string':
      return [
        ['empty', ''],
        ['huge', hugeString],
        ['NUL', 'a\u0000b'],
        ['invalid UTF-8', utf8Marker],
        ['path traversal', '../../../etc/passwd'],
        ['emoji', '🧵'.repeat(50)],
      ];
    case 'bool':
      return [['true', true]];
    case 'double':
    case 'float':
      return [
        ['negative', -1],
        ['NaN', NaN],
        ['Infinity', Infinity],
        ['huge', 1e308],
      ];
    case 'int64':
    case 'uint64':
      return [
        ['max', '9223372036854775807'],
        ['negative', '-1'],
      ];
    default:
      return [
        ['negative', -1],
        ['max', 2147483647],
        ['min', -2147483648],
      ];
  }
}

/** A value in the shape its field needs: inside a list for repeated fields, under a key for maps. */
const shaped = (field: protobuf.Field, value: unknown) => (field.map ? { key: value } : field.repeated ? [value] : value);

function deepStruct(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: 1 };
  for (let i = 0; i < depth; i++) value = { fields: { nested: { structValue: value } } };
  return value;
}

function fieldVariants(field: protobuf.Field): Array<[string, unknown]> {
  const type = field.resolvedType;
  if (type && 'fieldsArray' in type) {
    const one = (variants: Array<[string, unknown]>) => variants.map(([name, value]): [string, unknown] => [name, shaped(field, value)]);
    if (type.fullName === '.google.protobuf.Struct')
      return one([
        ['deep struct', deepStruct(30)],
        ['NUL key', { fields: { 'a\u0000': { stringValue: 'b\u0000' } } }],
      ]);
    if (type.fullName === '.google.protobuf.Timestamp')
      return one([
        ['far future', { seconds: '253402300800', nanos: 0 }],
        ['before year 0', { seconds: '-62200000000', nanos: 0 }],
      ]);
    // One level into nested messages: each of their fields' variants.
    const nested = (type as protobuf.Type).fieldsArray.filter((inner) => !(inner.resolvedType && 'fieldsArray' in inner.resolvedType));
    return one([
      ['empty message', {}],
      ...nested.flatMap((inner) =>
        scalarVariants(inner).map(([name, value]): [string, unknown] => [`${inner.name} ${name}`, { [inner.name]: shaped(inner, value) }]),
      ),
    ]);
  }
  const scalars = scalarVariants(field);
  if (field.map) return scalars.map(([name, value]): [string, unknown] => [`{key: ${name}}`, shaped(field, value)]);
  if (field.repeated) return [...scalars.map(([name, value]) => [`[${name}]`, [value]] as [string, unknown]), ['1000 items', Array(1000).fill(scalars[0]![1])]];
  return scalars;
}

function encode(type: protobuf.Type, message: Record<string, unknown>): Buffer {
  const bytes = Buffer.from(type.encode(type.fromObject(message)).finish());
  // Same length as the marker, so every length prefix stays right.
  const at = bytes.indexOf(utf8Marker);
  if (at >= 0) Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xa0, 0xa1, 0xe2, 0x28, 0xa1, 0xf0, 0x28, 0x8c, 0xbc, 0xc0, 0xaf]).copy(bytes, at);
  return bytes;
}

/** Every case for one RPC: whole-message oddities, then each field's variants on a plausible base. */
export function fuzzCases(serviceFullName: string, rpc: string, base: Record<string, unknown>): FuzzCase[] {
  const { request } = methodTypes(serviceFullName, rpc);
  const cases: FuzzCase[] = [
    { name: 'empty request', bytes: Buffer.alloc(0), expected: verdicts },
    { name: 'garbage bytes', bytes: Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f, 0x08, 0x96]), expected: invalidArgument },
  ];
  const firstString = request.fieldsArray.find((f) => f.type === 'string' && !f.repeated);
  if (firstString)
    cases.push({
      name: 'over the message size limit',
      bytes: encode(request, { ...base, [firstString.name]: 'x'.repeat(5 * 1024 * 1024) }),
      oversized: true,
      expected: new Set([grpc.status.RESOURCE_EXHAUSTED]),
    });
  for (const field of request.fieldsArray) {
    for (const [name, value] of fieldVariants(field)) {
      cases.push({ name: `${field.name}: ${name}`, bytes: encode(request, { ...base, [field.name]: value }), expected: expectedFor(name) });
    }
  }
  return cases;
}

export function serviceMethods(serviceFullName: string): Array<{ rpc: string; serverStreaming: boolean }> {
  const service = messageType('shannon.common.TaskMetadata').root.lookupService(serviceFullName);
  return Object.values(service.methods).map((m) => ({ rpc: m.name, serverStreaming: Boolean(m.responseStream) }));
}

const identity = (buffer: Buffer) => buffer;

/** Sends raw request bytes; resolves with the final status code (OK, or the error's). */
export function sendRaw(
  client: grpc.Client,
  path: string,
  bytes: Buffer,
  metadata: grpc.Metadata,
  serverStreaming: boolean,
  deadlineMs: number,
): Promise<{ code: grpc.status; details: string }> {
  const deadline = Date.now() + deadlineMs;
  return new Promise((resolve) => {
    if (!serverStreaming) {
      client.makeUnaryRequest(path, identity, identity, bytes, metadata, { deadline }, (err) =>
        resolve({ code: err?.code ?? grpc.status.OK, details: err?.details ?? '' }),
      );
      return;
    }
    const call = client.makeServerStreamRequest(path, identity, identity, bytes, metadata, { deadline });
    call.on('data', () => undefined);
    call.on('error', (err: grpc.ServiceError) => resolve({ code: err.code, details: err.details }));
    call.on('end', () => resolve({ code: grpc.status.OK, details: '' }));
  });
}

/** Every service of the API with the port (of ApiServer) it answers on. */
export const apiServices: Array<[string, 'port' | 'agentPort' | 'llmPort']> = [
  ['shannon.orchestrator.OrchestratorService', 'port'],
  ['shannon.orchestrator.StreamingService', 'port'],
  ['shannon.session.SessionService', 'port'],
  ['ai.AIService', 'port'],
  ['shannon.agent.AgentService', 'agentPort'],
  ['shannon.llm.LLMService', 'llmPort'],
];
