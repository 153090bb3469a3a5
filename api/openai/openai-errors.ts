import { z } from 'zod';
import type { ErrorShape } from '../http/http-route';
import { log } from '../../core/telemetry/logger';
import { taskErrorOf, type TaskErrorKind } from '../tasks/task-errors';

// Errors as OpenAI's API reports them, so OpenAI clients raise their own typed errors:
// `{"error": {"message", "type", "param", "code"}}` with OpenAI's status codes.

export interface OpenAiErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

/** A request OpenAI's API would refuse: 400 invalid_request_error, naming the parameter at fault. */
export class OpenAiRequestError extends Error {
  constructor(
    message: string,
    readonly param: string | null,
    readonly httpStatus = 400,
    readonly code: string | null = null,
  ) {
    super(message);
  }
}

/** 400: the request names `param` as what was wrong. */
export const invalid = (message: string, param: string) => new OpenAiRequestError(message, param);

export const modelNotFound = (model: string) =>
  new OpenAiRequestError(
    `The model '${model}' does not exist or you do not have access to it. GET /v1/models lists the models.`,
    'model',
    404,
    'model_not_found',
  );

/** The task service's errors as OpenAI's: its HTTP status, error type and code. */
export const openAiErrorTable: Record<TaskErrorKind, [httpStatus: number, type: string, code: string | null]> = {
  invalid: [400, 'invalid_request_error', null],
  not_found: [404, 'invalid_request_error', null],
  conflict: [409, 'invalid_request_error', null],
  precondition_failed: [409, 'invalid_request_error', null],
  exhausted: [429, 'rate_limit_error', 'rate_limit_exceeded'],
  unavailable: [503, 'server_error', null],
  permission_denied: [403, 'permission_error', 'insufficient_permissions'],
  unauthenticated: [401, 'invalid_request_error', 'invalid_api_key'],
  timed_out: [504, 'server_error', null],
  cancelled: [499, 'invalid_request_error', null],
  internal: [500, 'server_error', null],
};

export function openAiErrorOf(err: unknown): { httpStatus: number; body: OpenAiErrorBody } {
  if (err instanceof OpenAiRequestError) {
    return { httpStatus: err.httpStatus, body: { error: { message: err.message, type: 'invalid_request_error', param: err.param, code: err.code } } };
  }
  const { kind, message, field } = taskErrorOf(err, (line) => log().error(`OpenAI routes ${line}`));
  const [httpStatus, type, code] = openAiErrorTable[kind];
  return { httpStatus, body: { error: { message, type, param: field ?? null, code } } };
}

/** OpenAI's error body, which OpenAI's routes answer with. */
export const openAiErrors: ErrorShape = {
  name: 'OpenAiError',
  schema: z.object({
    error: z.object({ message: z.string(), type: z.string(), param: z.string().nullable(), code: z.string().nullable() }),
  }),
  of: openAiErrorOf,
};
