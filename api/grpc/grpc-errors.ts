import { status as GrpcStatus, type ServerErrorResponse } from '@grpc/grpc-js';
import OpenAI from 'openai';
import { isUnstorableValueError } from '../../core/db/errors';
import { ModelUnavailableError, UnknownModelError } from '../../core/llm/gateway-errors';
import { ToolSourceExistsError } from '../../core/tools/tool-source-store';
import { ConversationError, MessageConflictError } from '../../core/sessions/errors';
import { TranscriptError } from '../../core/transcript';
import { FolderEntryNotFoundError, FolderPathError } from '../../core/tools/builtin/folder-browsing';
import { AgentInputError } from '../../core/agents/agent-catalog';

/** An error the API reports to the caller with a gRPC status and a message that says what was wrong. */
export class ApiError extends Error {
  constructor(
    readonly code: GrpcStatus,
    message: string,
  ) {
    super(message);
  }
}

export const invalidArgument = (message: string) => new ApiError(GrpcStatus.INVALID_ARGUMENT, message);
export const notFound = (message: string) => new ApiError(GrpcStatus.NOT_FOUND, message);
export const resourceExhausted = (message: string) => new ApiError(GrpcStatus.RESOURCE_EXHAUSTED, message);
export const permissionDenied = (message: string) => new ApiError(GrpcStatus.PERMISSION_DENIED, message);
export const unavailable = (message: string) => new ApiError(GrpcStatus.UNAVAILABLE, message);

const socketFailures = ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE'];
// Postgres shutting down or restarting (admin_shutdown, crash_shutdown, cannot_connect_now).
const postgresGoingAway = ['57P01', '57P02', '57P03'];

/**
 * Failures of Postgres or Temporal being down or restarting, not of Weft: a socket refused or
 * reset, a Postgres connection exception (SQLSTATE class 08) or shutdown, a pooled connection the
 * server ended, Temporal's frontend unreachable (gRPC UNAVAILABLE, possibly as a client error's cause).
 */
function isDependencyDown(err: unknown): boolean {
  const { code, message, cause } = (err ?? {}) as { code?: unknown; message?: unknown; cause?: { code?: unknown } };
  if (typeof code === 'string' && (socketFailures.includes(code) || postgresGoingAway.includes(code) || code.startsWith('08'))) return true;
  if (code === GrpcStatus.UNAVAILABLE || cause?.code === GrpcStatus.UNAVAILABLE) return true;
  return typeof message === 'string' && /^Connection terminated|is not queryable/.test(message);
}

/** A model provider's failure, in the caller's terms: its own bad request, a limit, or the provider being down. */
function modelFailure(err: InstanceType<typeof OpenAI.APIError>): Partial<ServerErrorResponse> {
  const details = `the model provider answered${err.status ? ` HTTP ${err.status}` : ''}: ${err.message}`;
  if (err instanceof OpenAI.APIConnectionTimeoutError) return { code: GrpcStatus.DEADLINE_EXCEEDED, details: 'the model provider did not answer in time' };
  if (err.status === 429) return { code: GrpcStatus.RESOURCE_EXHAUSTED, details };
  if (err.status === 404) return { code: GrpcStatus.NOT_FOUND, details };
  if (err.status === 400 || err.status === 422) return { code: GrpcStatus.INVALID_ARGUMENT, details };
  return { code: GrpcStatus.UNAVAILABLE, details };
}

/**
 * Messages travel in a response header, and many echo the caller's input; a long one would break the
 * connection's header limits, so they are cut.
 */
const maxDetailsLength = 1_000;
const bounded = (details: string) => (details.length > maxDetailsLength ? `${details.slice(0, maxDetailsLength)}…` : details);

export function toServiceError(err: unknown, log: (line: string) => void): Partial<ServerErrorResponse> {
  const error = describeError(err, log);
  return { ...error, details: bounded(error.details ?? '') };
}

function describeError(err: unknown, log: (line: string) => void): Partial<ServerErrorResponse> {
  if (err instanceof ApiError) return { code: err.code, details: err.message };
  if (err instanceof TranscriptError) return { code: GrpcStatus.INVALID_ARGUMENT, details: `invalid conversation: ${err.message}` };
  if (err instanceof OpenAI.APIError) return modelFailure(err);
  if (err instanceof UnknownModelError) return { code: GrpcStatus.NOT_FOUND, details: err.message };
  // Every candidate busy is a limit the caller can wait out; anything else is the providers being down.
  if (err instanceof ModelUnavailableError) return { code: err.rateLimited ? GrpcStatus.RESOURCE_EXHAUSTED : GrpcStatus.UNAVAILABLE, details: err.message };
  if (err instanceof MessageConflictError || err instanceof ToolSourceExistsError) return { code: GrpcStatus.ALREADY_EXISTS, details: err.message };
  // Unknown, another tenant's, deleted or expired: the session is not there for this caller.
  if (err instanceof ConversationError) return { code: GrpcStatus.NOT_FOUND, details: err.message };
  if (err instanceof AgentInputError) return { code: GrpcStatus.INVALID_ARGUMENT, details: err.message };
  if (err instanceof FolderPathError) return { code: GrpcStatus.INVALID_ARGUMENT, details: err.message };
  if (err instanceof FolderEntryNotFoundError) return { code: GrpcStatus.NOT_FOUND, details: err.message };
  if (isUnstorableValueError(err)) return { code: GrpcStatus.INVALID_ARGUMENT, details: `a value cannot be stored: ${err.message}` };
  if (isDependencyDown(err)) return { code: GrpcStatus.UNAVAILABLE, details: 'a dependency is unavailable; retry later' };
  log(`internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  return { code: GrpcStatus.INTERNAL, details: 'internal error' };
}
export const failedPrecondition = (message: string) => new ApiError(GrpcStatus.FAILED_PRECONDITION, message);
