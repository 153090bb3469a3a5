import fc from 'fast-check';
import * as protobuf from 'protobufjs';

// Property-based requests for the front door, built from the request types' descriptors with
// fast-check: every field may be absent or hold a hostile value of its type (huge, empty, NUL,
// traversal, non-ASCII, out-of-range numbers, unknown enums, deep structures), and some requests
// are not messages at all. REST requests get hostile paths, query strings, bodies and headers.

const hostileStrings = [
  '',
  ' ',
  '../../../etc/passwd',
  'a\u0000b',
  'x'.repeat(257),
  'x'.repeat(40_000),
  '🧵'.repeat(100),
  "' OR 1=1 --",
  '%2e%2e%2f',
  'line\r\nbreak',
  'task-1/answer',
  '1698765432000-42',
  'weft_abcdefabcdef_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx',
];

export const hostileString = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 40 }), fc.constantFrom(...hostileStrings));

const int32 = fc.oneof(fc.integer(), fc.constantFrom(0, -1, 2 ** 31 - 1, -(2 ** 31)));
const int64 = fc.oneof(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String), fc.constantFrom('0', '-1', '9223372036854775807'));
const uint = fc.oneof(fc.nat(), fc.constantFrom(0, 2 ** 32 - 1));
const uint64 = fc.oneof(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map(String), fc.constantFrom('0', '18446744073709551615'));

const jsonLeaf = fc.oneof(hostileString, fc.double(), fc.boolean(), fc.constant(null));
const structValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    jsonLeaf.map(toValue),
    tie('struct').map((struct) => ({ structValue: struct })),
    fc.array(tie('value'), { maxLength: 3 }).map((values) => ({ listValue: { values } })),
  ),
  struct: fc.dictionary(hostileString, tie('value'), { maxKeys: 4 }).map((fields) => ({ fields })),
})).value;

function toValue(leaf: unknown): Record<string, unknown> {
  if (typeof leaf === 'string') return { stringValue: leaf };
  if (typeof leaf === 'number') return { numberValue: leaf };
  if (typeof leaf === 'boolean') return { boolValue: leaf };
  return { nullValue: 'NULL_VALUE' };
}

function scalar(field: protobuf.Field): fc.Arbitrary<unknown> {
  const type = field.resolvedType;
  if (type instanceof protobuf.Enum) return fc.oneof(fc.constantFrom(...Object.keys(type.values)), fc.integer({ min: -5, max: 99 }));
  switch (field.type) {
    case 'string':
      return hostileString;
    case 'bytes':
      return fc.uint8Array({ maxLength: 64 });
    case 'bool':
      return fc.boolean();
    case 'double':
    case 'float':
      return fc.double();
    case 'int32':
    case 'sint32':
    case 'sfixed32':
      return int32;
    case 'uint32':
    case 'fixed32':
      return uint;
    case 'uint64':
    case 'fixed64':
      return uint64;
    default:
      return int64;
  }
}

function fieldValue(field: protobuf.Field, depth: number): fc.Arbitrary<unknown> {
  const type = field.resolvedType;
  const one =
    type instanceof protobuf.Type
      ? type.fullName === '.google.protobuf.Struct'
        ? fc.dictionary(hostileString, structValue, { maxKeys: 4 }).map((fields) => ({ fields }))
        : type.fullName === '.google.protobuf.Timestamp'
          ? fc.record({ seconds: int64, nanos: int32 })
          : depth > 2
            ? fc.constant({})
            : messageOf(type, depth + 1)
      : scalar(field);
  if (field.map) return fc.dictionary(hostileString, one, { maxKeys: 3 });
  if (field.repeated) return fc.array(one, { maxLength: 4 });
  return one;
}

/** An object of the message type: each field absent or hostile. */
export function messageOf(type: protobuf.Type, depth = 0): fc.Arbitrary<Record<string, unknown>> {
  const fields = Object.fromEntries(type.fieldsArray.map((field) => [field.name, fieldValue(field, depth)]));
  return fc.record(fields, { requiredKeys: [] }) as fc.Arbitrary<Record<string, unknown>>;
}

/** The bytes of one request: usually an encoded message of the type, sometimes garbage. */
export function requestBytes(type: protobuf.Type): fc.Arbitrary<Buffer> {
  const encoded = messageOf(type).map((message) => {
    try {
      return Buffer.from(type.encode(type.fromObject(message)).finish());
    } catch {
      // Values protobufjs itself cannot encode are not requests a client can send.
      return Buffer.alloc(0);
    }
  });
  return fc.oneof({ weight: 9, arbitrary: encoded }, { weight: 1, arbitrary: fc.uint8Array({ maxLength: 128 }).map((bytes) => Buffer.from(bytes)) });
}

/** A hostile path segment, encoded as a client would put it in a URL. */
export const pathSegment = hostileString.map((text) => encodeURIComponent(text.slice(0, 2_000)) || 'x');

/** A REST body: a JSON object (perhaps shaped like the request type), other JSON, or text that is not JSON. */
export function restBody(type: protobuf.Type | undefined): fc.Arbitrary<string | undefined> {
  const shaped = type
    ? fc.dictionary(fc.constantFrom(...type.fieldsArray.map((field) => field.name), 'unknown_field'), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 })
    : fc.object();
  return fc.oneof(
    { weight: 6, arbitrary: shaped.map((value) => JSON.stringify(value)) },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)) },
    { weight: 1, arbitrary: fc.string({ maxLength: 60 }) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

/** Headers: a valid key most of the time, sometimes none or a broken one, and hostile extra headers. */
export function restHeaders(apiKey: string): fc.Arbitrary<Record<string, string>> {
  const printable = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)), maxLength: 300 });
  // Bytes past ASCII that HTTP clients will send (DEL and the C1 controls they refuse themselves).
  const latin1 = fc.string({
    unit: fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0xa0, max: 0xff })).map((code) => String.fromCharCode(code)),
    maxLength: 40,
  });
  return fc.record(
    {
      authorization: fc.oneof({ weight: 8, arbitrary: fc.constant(`Bearer ${apiKey}`) }, { weight: 1, arbitrary: printable }, { weight: 1, arbitrary: latin1 }),
      'idempotency-key': fc.oneof(printable, latin1),
      'last-event-id': fc.oneof(printable, latin1),
      'x-api-key': latin1,
    },
    { requiredKeys: [] },
  );
}
