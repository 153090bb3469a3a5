import path from 'node:path';
import * as protobuf from 'protobufjs';
import { allProtoFiles } from './load';

// The API's messages as plain JSON for the REST gateway, following the proto3 JSON mapping where it
// matters to users: field names as in the .proto files (snake_case, like the seed's examples), enums
// by name, Struct and Value as plain JSON, Timestamp as RFC 3339, int64 as strings. Driven by the
// message descriptors, so every service and message is covered without per-type code.

export class JsonMappingError extends Error {}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type ProtoObject = Record<string, unknown>;

let root: protobuf.Root | undefined;

function protoRoot(): protobuf.Root {
  if (!root) {
    const loaded = new protobuf.Root();
    loaded.resolvePath = (_origin, target) => path.join(__dirname, target);
    // google/protobuf/*.proto come with protobufjs.
    loaded.loadSync(allProtoFiles, { keepCase: true });
    loaded.resolveAll();
    root = loaded;
  }
  return root;
}

export function messageType(fullName: string): protobuf.Type {
  return protoRoot().lookupType(fullName);
}

/** The request and response types of a service's method. */
export function methodTypes(serviceFullName: string, rpc: string): { request: protobuf.Type; response: protobuf.Type } {
  const method = protoRoot().lookupService(serviceFullName).methods[rpc];
  if (!method?.resolvedRequestType || !method.resolvedResponseType) throw new Error(`${serviceFullName}/${rpc} is not defined`);
  return { request: method.resolvedRequestType, response: method.resolvedResponseType };
}

type JsonSchema = Record<string, unknown>;
const scalarSchemas: Record<string, JsonSchema> = {
  string: { type: 'string' },
  bytes: { type: 'string', format: 'byte' },
  bool: { type: 'boolean' },
  double: { type: 'number' },
  float: { type: 'number' },
  int32: { type: 'integer', format: 'int32' },
  uint32: { type: 'integer', format: 'int32', minimum: 0 },
  int64: { type: 'string', format: 'int64' },
  uint64: { type: 'string', format: 'uint64' },
};

/**
 * The JSON schema of a message as the REST gateway reads and writes it; message schemas are added
 * to `components` (by full name) and referenced.
 */
export function jsonSchemaOf(type: protobuf.Type, components: Record<string, JsonSchema>): JsonSchema {
  const name = type.fullName.slice(1);
  const special: Record<string, JsonSchema> = {
    [wellKnown.struct]: { type: 'object', additionalProperties: true },
    [wellKnown.value]: {},
    [wellKnown.list]: { type: 'array', items: {} },
    [wellKnown.timestamp]: { type: 'string', format: 'date-time' },
  };
  if (special[type.fullName]) return special[type.fullName]!;
  if (!components[name]) {
    components[name] = {}; // placed first, so recursive messages terminate
    const properties = Object.fromEntries(type.fieldsArray.map((field) => [field.name, fieldSchemaOf(field, components)]));
    components[name] = { type: 'object', properties, additionalProperties: false };
  }
  return { $ref: `#/components/schemas/${name}` };
}

export function fieldSchemaOf(field: protobuf.Field, components: Record<string, JsonSchema>): JsonSchema {
  const resolved = field.resolvedType;
  const item =
    resolved instanceof protobuf.Type
      ? jsonSchemaOf(resolved, components)
      : resolved instanceof protobuf.Enum
        ? { type: 'string', enum: Object.keys(resolved.values) }
        : (scalarSchemas[field.type] ?? { type: 'integer' });
  return field.map ? { type: 'object', additionalProperties: item } : field.repeated ? { type: 'array', items: item } : item;
}

const wellKnown = {
  struct: '.google.protobuf.Struct',
  value: '.google.protobuf.Value',
  list: '.google.protobuf.ListValue',
  timestamp: '.google.protobuf.Timestamp',
};

function valueToJson(value: ProtoObject): Json {
  if ('structValue' in value && value.structValue) return structToJson(value.structValue as ProtoObject);
  if ('listValue' in value && value.listValue) return ((value.listValue as { values?: ProtoObject[] }).values ?? []).map(valueToJson);
  for (const kind of ['numberValue', 'stringValue', 'boolValue'] as const)
    if (kind in value && value[kind] !== undefined && value[kind] !== null) return value[kind] as Json;
  return null;
}

function structToJson(struct: ProtoObject): { [key: string]: Json } {
  return Object.fromEntries(Object.entries((struct.fields as Record<string, ProtoObject>) ?? {}).map(([k, v]) => [k, valueToJson(v)]));
}

function jsonToValue(json: unknown): ProtoObject {
  if (json === null) return { nullValue: 'NULL_VALUE' };
  if (typeof json === 'number') return { numberValue: json };
  if (typeof json === 'string') return { stringValue: json };
  if (typeof json === 'boolean') return { boolValue: json };
  if (Array.isArray(json)) return { listValue: { values: json.map(jsonToValue) } };
  return { structValue: jsonToStruct(json as Record<string, unknown>) };
}

function jsonToStruct(json: Record<string, unknown>): ProtoObject {
  return { fields: Object.fromEntries(Object.entries(json).map(([k, v]) => [k, jsonToValue(v)])) };
}

/** A message object as the gRPC client returns it, as JSON. */
export function toJson(type: protobuf.Type, message: object): { [key: string]: Json } {
  const out: { [key: string]: Json } = {};
  for (const field of type.fieldsArray) {
    const value = (message as ProtoObject)[field.name];
    if (value === undefined || value === null) continue;
    const convert = (item: unknown): Json => fieldToJson(field, item);
    if (field.map) out[field.name] = Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, convert(v)]));
    else if (field.repeated) out[field.name] = (value as unknown[]).map(convert);
    else out[field.name] = convert(value);
  }
  return out;
}

function fieldToJson(field: protobuf.Field, value: unknown): Json {
  const type = field.resolvedType;
  if (!(type instanceof protobuf.Type)) return value as Json;
  const object = value as ProtoObject;
  switch (type.fullName) {
    case wellKnown.struct:
      return structToJson(object);
    case wellKnown.value:
      return valueToJson(object);
    case wellKnown.list:
      return ((object.values as ProtoObject[]) ?? []).map(valueToJson);
    case wellKnown.timestamp:
      return new Date(Number(object.seconds) * 1000 + Math.floor(Number(object.nanos ?? 0) / 1e6)).toISOString();
    default:
      return toJson(type, object);
  }
}

const scalarChecks: Record<string, (v: unknown) => boolean> = {
  string: (v) => typeof v === 'string',
  bytes: (v) => typeof v === 'string',
  bool: (v) => typeof v === 'boolean',
  double: (v) => typeof v === 'number',
  float: (v) => typeof v === 'number',
};
const isInteger = (v: unknown) => (typeof v === 'number' && Number.isInteger(v)) || (typeof v === 'string' && /^-?\d+$/.test(v));

/** The range of each integer type: a value outside it would wrap silently when encoded. */
const integerRanges: Record<string, [bigint, bigint]> = {
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  sint32: [-(2n ** 31n), 2n ** 31n - 1n],
  sfixed32: [-(2n ** 31n), 2n ** 31n - 1n],
  uint32: [0n, 2n ** 32n - 1n],
  fixed32: [0n, 2n ** 32n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
  sint64: [-(2n ** 63n), 2n ** 63n - 1n],
  sfixed64: [-(2n ** 63n), 2n ** 63n - 1n],
  uint64: [0n, 2n ** 64n - 1n],
  fixed64: [0n, 2n ** 64n - 1n],
};

function inIntegerRange(fieldType: string, value: unknown): boolean {
  const range = integerRanges[fieldType];
  if (!range) return true;
  // 1e20 is an integer to JavaScript; BigInt holds it exactly.
  const exact = BigInt(typeof value === 'number' ? value : String(value));
  return exact >= range[0] && exact <= range[1];
}

/** A request's JSON as the object the gRPC client sends; wrong shapes and unknown fields are refused with their path. */
export function fromJson(type: protobuf.Type, json: unknown, at = ''): ProtoObject {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new JsonMappingError(`${at || 'body'} must be a JSON object`);
  const out: ProtoObject = {};
  for (const [key, value] of Object.entries(json)) {
    const field = type.fields[key];
    const where = at ? `${at}.${key}` : key;
    if (!field) throw new JsonMappingError(`unknown field ${where}`);
    if (value === null) continue;
    const convert = (item: unknown, itemAt: string) => fieldFromJson(field, item, itemAt);
    if (field.map) {
      if (typeof value !== 'object' || Array.isArray(value)) throw new JsonMappingError(`${where} must be an object`);
      out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, convert(v, `${where}.${k}`)]));
    } else if (field.repeated) {
      if (!Array.isArray(value)) throw new JsonMappingError(`${where} must be an array`);
      out[key] = value.map((item, i) => convert(item, `${where}[${i}]`));
    } else out[key] = convert(value, where);
  }
  return out;
}

function fieldFromJson(field: protobuf.Field, value: unknown, at: string): unknown {
  const type = field.resolvedType;
  if (type instanceof protobuf.Enum) {
    if (typeof value === 'string' && value in type.values) return value;
    throw new JsonMappingError(`${at} must be one of ${Object.keys(type.values).join(', ')}`);
  }
  if (type instanceof protobuf.Type) {
    switch (type.fullName) {
      case wellKnown.struct:
        if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new JsonMappingError(`${at} must be a JSON object`);
        return jsonToStruct(value as Record<string, unknown>);
      case wellKnown.value:
        return jsonToValue(value);
      case wellKnown.timestamp: {
        const ms = typeof value === 'string' ? Date.parse(value) : NaN;
        if (Number.isNaN(ms)) throw new JsonMappingError(`${at} must be an RFC 3339 timestamp`);
        return { seconds: String(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1e6 };
      }
      default:
        return fromJson(type, value, at);
    }
  }
  const check = scalarChecks[field.type] ?? isInteger;
  if (!check(value)) throw new JsonMappingError(`${at} must be a ${field.type}`);
  if (!inIntegerRange(field.type, value)) throw new JsonMappingError(`${at} is out of range for a ${field.type}`);
  return value;
}

/**
 * The path of the first enum field holding a number no value of its enum has (a decoded message
 * keeps unknown enum numbers as numbers), or undefined when every enum value is known.
 */
export function unknownEnumIn(type: protobuf.Type, message: object, at = ''): string | undefined {
  for (const field of type.fieldsArray) {
    const value = (message as ProtoObject)[field.name];
    if (value === undefined || value === null) continue;
    const where = at ? `${at}.${field.name}` : field.name;
    const items = field.map ? Object.values(value as object) : field.repeated ? (value as unknown[]) : [value];
    const resolved = field.resolvedType;
    for (const item of items) {
      if (resolved instanceof protobuf.Enum && typeof item !== 'string') return where;
      if (resolved instanceof protobuf.Type && !resolved.fullName.startsWith('.google.protobuf.')) {
        const inner = unknownEnumIn(resolved, item as object, where);
        if (inner) return inner;
      }
    }
  }
  return undefined;
}
