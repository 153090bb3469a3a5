import type { Struct, Struct__Output } from '../../protos/generated/google/protobuf/Struct';
import type { Value, Value__Output } from '../../protos/generated/google/protobuf/Value';

// Protobuf well-known types <-> plain values: Struct <-> JSON (context, metadata, schemas) and
// Date -> Timestamp.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function fromValue(value: Value__Output): Json {
  switch (value.kind) {
    case 'numberValue':
      return value.numberValue!;
    case 'stringValue':
      return value.stringValue!;
    case 'boolValue':
      return value.boolValue!;
    case 'structValue':
      return structToJson(value.structValue!);
    case 'listValue':
      return (value.listValue?.values ?? []).map(fromValue);
    default:
      return null;
  }
}

export function structToJson(struct: Struct__Output | null | undefined): { [key: string]: Json } {
  return Object.fromEntries(Object.entries(struct?.fields ?? {}).map(([key, value]) => [key, fromValue(value)]));
}

/** Any JSON value as a protobuf Value. */
export function jsonToValue(value: unknown): Value {
  if (value === null || value === undefined) return { nullValue: 'NULL_VALUE' };
  if (typeof value === 'number') return { numberValue: value };
  if (typeof value === 'string') return { stringValue: value };
  if (typeof value === 'boolean') return { boolValue: value };
  if (Array.isArray(value)) return { listValue: { values: value.map(jsonToValue) } };
  return { structValue: jsonToStruct(value as Record<string, unknown>) };
}

export function jsonToStruct(json: Record<string, unknown>): Struct {
  return { fields: Object.fromEntries(Object.entries(json).map(([key, value]) => [key, jsonToValue(value)])) };
}

export function toTimestamp(date: Date): { seconds: string; nanos: number } {
  const ms = date.getTime();
  return { seconds: String(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1_000_000 };
}

export function fromTimestamp(timestamp: { seconds: string | number; nanos: number }): Date {
  return new Date(Number(timestamp.seconds) * 1000 + Math.floor(timestamp.nanos / 1_000_000));
}
