import { invalidArgument } from './grpc-errors';

/** Longest id-like field accepted (user, session, tool and similar ids). */
export const maxIdLength = 256;

/** An id-like text field, refused when longer than `max` characters. */
export function boundedId(value: string, field: string, max = maxIdLength): string {
  if (value.length > max) throw invalidArgument(`${field} is ${value.length} characters; the limit is ${max}`);
  return value;
}
