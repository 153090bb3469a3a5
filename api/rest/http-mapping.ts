import { Metadata } from '@grpc/grpc-js';
import { authorizationOf } from '../http/credentials';
import type * as protobuf from 'protobufjs';
import { fromJson, JsonMappingError } from '../../protos/json-mapping';

// HTTP <-> gRPC for the REST gateway: a request's parts into one gRPC request, the caller's headers
// into metadata.

/** Query strings are text; each becomes its field's JSON type (repeated fields: comma-separated). */
function queryValue(field: protobuf.Field, text: string): unknown {
  const one = (item: string): unknown => {
    if (field.type === 'bool') {
      if (item !== 'true' && item !== 'false') throw new JsonMappingError(`${field.name} must be true or false`);
      return item === 'true';
    }
    if (['int32', 'uint32', 'sint32', 'fixed32', 'sfixed32', 'double', 'float'].includes(field.type)) {
      const number = Number(item);
      if (item.trim() === '' || !Number.isFinite(number)) throw new JsonMappingError(`${field.name} must be a number`);
      return number;
    }
    return item;
  };
  return field.repeated ? text.split(',').filter(Boolean).map(one) : one(text);
}

export function grpcRequestOf(
  type: protobuf.Type,
  parts: { params: Record<string, string>; query: Record<string, unknown>; body: unknown; queryFields: readonly string[] },
): Record<string, unknown> {
  if (parts.body !== undefined && (typeof parts.body !== 'object' || parts.body === null || Array.isArray(parts.body))) {
    throw new JsonMappingError('the request body must be a JSON object');
  }
  const json: Record<string, unknown> = { ...(parts.body as object | undefined) };
  for (const [name, value] of Object.entries(parts.query)) {
    if (!parts.queryFields.includes(name)) throw new JsonMappingError(`unknown query parameter ${name}`);
    json[name] = queryValue(type.fields[name]!, String(value));
  }
  // Path parameters name the resource and win over the body.
  Object.assign(json, parts.params);
  return fromJson(type, json);
}

/** The headers the gateway passes on to the gRPC services (as metadata). */
const forwardedHeaders = ['authorization', 'idempotency-key', 'x-api-key', 'last-event-id'];

/**
 * Why a request's forwarded headers cannot be carried as gRPC metadata (which holds printable ASCII
 * only), or undefined when they can.
 */
export function uncarriableHeaderOf(headers: Record<string, string | string[] | undefined>): string | undefined {
  for (const name of forwardedHeaders) {
    const value = headers[name];
    if (value === undefined) continue;
    if (Array.isArray(value)) return `header ${name} may be sent once`;
    if (!/^[\x20-\x7e]*$/.test(value)) return `header ${name} must be printable ASCII`;
  }
  return undefined;
}

/** The caller's credentials and idempotency key, passed on to the gRPC service. */
export function metadataOf(headers: Record<string, string | string[] | undefined>): Metadata {
  const metadata = new Metadata();
  // W3C trace context: a REST call continues its caller's trace like a gRPC call does.
  for (const name of ['idempotency-key', 'traceparent', 'tracestate']) {
    const value = headers[name];
    if (typeof value === 'string' && value !== '') metadata.set(name, value);
  }
  // Shannon's HTTP clients send the key as X-API-Key.
  const authorization = authorizationOf(headers);
  if (authorization) metadata.set('authorization', authorization);
  return metadata;
}
