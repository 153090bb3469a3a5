import { z } from 'zod';
import { log } from '../../core/telemetry/logger';
import { JsonMappingError } from '../../protos/json-mapping';
import type { ErrorShape } from './http-route';
import { taskErrorOf, type TaskErrorKind } from '../tasks/task-errors';

// The task service's errors as the HTTP doors of Weft and Shannon answer them: an HTTP status, and
// Shannon's body, `{"error": "...", "code": "...", "status": "..."}`, whose code is the seed's
// status name. One table.

/** The task service's errors as HTTP statuses, with the seed's status code name in Shannon's body. */
export const httpErrorTable: Record<TaskErrorKind, [httpStatus: number, code: string]> = {
  invalid: [400, 'INVALID_ARGUMENT'],
  not_found: [404, 'NOT_FOUND'],
  conflict: [409, 'ALREADY_EXISTS'],
  precondition_failed: [409, 'FAILED_PRECONDITION'],
  exhausted: [429, 'RESOURCE_EXHAUSTED'],
  unavailable: [503, 'UNAVAILABLE'],
  permission_denied: [403, 'PERMISSION_DENIED'],
  unauthenticated: [401, 'UNAUTHENTICATED'],
  timed_out: [504, 'DEADLINE_EXCEEDED'],
  cancelled: [499, 'CANCELLED'],
  internal: [500, 'INTERNAL'],
};

export interface HttpError {
  httpStatus: number;
  body: { error: string; code: string; status: string };
}

/** A failure (or a request the gateway could not map) as an HTTP status and Shannon's JSON body. */
export function httpErrorOf(err: unknown): HttpError {
  if (err instanceof JsonMappingError) {
    return { httpStatus: 400, body: { error: err.message, code: 'INVALID_ARGUMENT', status: 'STATUS_CODE_ERROR' } };
  }
  const { kind, message } = taskErrorOf(err, (line) => log().error(`HTTP ${line}`));
  const [httpStatus, code] = httpErrorTable[kind];
  const status = kind === 'exhausted' ? 'STATUS_CODE_RATE_LIMITED' : kind === 'timed_out' ? 'STATUS_CODE_TIMEOUT' : 'STATUS_CODE_ERROR';
  return { httpStatus, body: { error: message, code, status } };
}

/** Shannon's error body, which Weft's REST routes and Shannon's answer with. */
export const shannonErrors: ErrorShape = {
  name: 'Error',
  schema: z.object({
    error: z.string().describe('what was wrong'),
    code: z.string().describe('the gRPC status name, e.g. NOT_FOUND'),
    status: z.enum(['STATUS_CODE_ERROR', 'STATUS_CODE_TIMEOUT', 'STATUS_CODE_RATE_LIMITED']),
  }),
  of: httpErrorOf,
};
