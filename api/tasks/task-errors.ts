import OpenAI from 'openai';
import { isUnstorableValueError } from '../../core/db/errors';
import { ModelUnavailableError, UnknownModelError } from '../../core/llm/gateway-errors';
import { ToolSourceExistsError } from '../../core/tools/tool-source-store';
import { ConversationError, MessageConflictError } from '../../core/sessions/errors';
import { TranscriptError } from '../../core/transcript';
import { FolderEntryNotFoundError, FolderPathError } from '../../core/tools/builtin/folder-browsing';
import { AgentInputError } from '../../core/agents/agent-catalog';

// The one vocabulary of what went wrong, whichever door the request came through: each kind is
// named once here, and each door maps it to its protocol by a small table of its own (gRPC
// statuses, HTTP statuses with Shannon's body, OpenAI's error body).

/** Each kind of failure, with when a request meets it (the error reference is generated from this). */
export const taskErrorKinds = {
  invalid:
    "The request is wrong: validation failed; a request that does not decode, or that a strict parser refuses; an id-like field over 256 bytes; an integer outside its type's range; an unknown event type in a filter. The message (and OpenAI's `param`) names the field at fault.",
  not_found: "An unknown id, or another tenant's (which tells nothing about whether it exists); an ended session, with the reason.",
  conflict: 'What the request would make exists already: the same task id or `idempotency-key` with a different request.',
  precondition_failed:
    "The request is right, but the task, schedule or session is not in a state to take it: an approval no longer pending, a plan review's version that changed.",
  exhausted: "A limit: a rate (per key, a tenant's submissions or running tasks), a budget, a message over `WEFT_MAX_MESSAGE_BYTES`.",
  unavailable: "A dependency is down or restarting: the model providers (each candidate's failure in the message), Postgres or Temporal.",
  permission_denied: "Another tenant's action, or a role the key does not hold (`approver`, `act_for_users`, `admin`).",
  unauthenticated: 'No API key, or a bad, revoked or expired one.',
  timed_out: "The call's deadline passed, or a dependency did not answer in time.",
  cancelled: 'The caller went away.',
  internal: "Weft's own failure: logged, and reported without its details.",
} as const;

export type TaskErrorKind = keyof typeof taskErrorKinds;

export class TaskError extends Error {
  constructor(
    readonly kind: TaskErrorKind,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

export const invalid = (message: string, field?: string) => new TaskError('invalid', message, field);
export const notFound = (message: string) => new TaskError('not_found', message);
export const conflict = (message: string) => new TaskError('conflict', message);
export const preconditionFailed = (message: string) => new TaskError('precondition_failed', message);
export const exhausted = (message: string) => new TaskError('exhausted', message);
export const unavailable = (message: string) => new TaskError('unavailable', message);
export const permissionDenied = (message: string) => new TaskError('permission_denied', message);
export const unauthenticated = (message: string) => new TaskError('unauthenticated', message);

const socketFailures = ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE'];
// Postgres shutting down or restarting (admin_shutdown, crash_shutdown, cannot_connect_now).
const postgresGoingAway = ['57P01', '57P02', '57P03'];
/** gRPC's UNAVAILABLE, as Temporal's client reports its frontend unreachable. */
const grpcUnavailable = 14;

/**
 * Failures of Postgres or Temporal being down or restarting, not of Weft: a socket refused or
 * reset, a Postgres connection exception (SQLSTATE class 08) or shutdown, a pooled connection the
 * server ended, Temporal's frontend unreachable (possibly as a client error's cause).
 */
function isDependencyDown(err: unknown): boolean {
  const { code, message, cause } = (err ?? {}) as { code?: unknown; message?: unknown; cause?: { code?: unknown } };
  if (typeof code === 'string' && (socketFailures.includes(code) || postgresGoingAway.includes(code) || code.startsWith('08'))) return true;
  if (code === grpcUnavailable || cause?.code === grpcUnavailable) return true;
  return typeof message === 'string' && /^Connection terminated|is not queryable/.test(message);
}

/** A model provider's failure, in the caller's terms: its own bad request, a limit, or the provider being down. */
function modelFailure(err: InstanceType<typeof OpenAI.APIError>): TaskError {
  const message = `the model provider answered${err.status ? ` HTTP ${err.status}` : ''}: ${err.message}`;
  if (err instanceof OpenAI.APIConnectionTimeoutError) return new TaskError('timed_out', 'the model provider did not answer in time');
  if (err.status === 429) return exhausted(message);
  if (err.status === 404) return notFound(message);
  if (err.status === 400 || err.status === 422) return invalid(message);
  return unavailable(message);
}

/** Any failure as the vocabulary's: Weft's own errors as they are, the core's and the dependencies' classified; the rest internal (and logged). */
export function taskErrorOf(err: unknown, log: (line: string) => void): TaskError {
  if (err instanceof TaskError) return err;
  if (err instanceof TranscriptError) return invalid(`invalid conversation: ${err.message}`);
  if (err instanceof OpenAI.APIError) return modelFailure(err);
  if (err instanceof UnknownModelError) return notFound(err.message);
  // Every candidate busy is a limit the caller can wait out; anything else is the providers being down.
  if (err instanceof ModelUnavailableError) return err.rateLimited ? exhausted(err.message) : unavailable(err.message);
  if (err instanceof MessageConflictError || err instanceof ToolSourceExistsError) return conflict(err.message);
  // Unknown, another tenant's, deleted or expired: the session is not there for this caller.
  if (err instanceof ConversationError) return notFound(err.message);
  if (err instanceof AgentInputError || err instanceof FolderPathError) return invalid(err.message);
  if (err instanceof FolderEntryNotFoundError) return notFound(err.message);
  if (isUnstorableValueError(err)) return invalid(`a value cannot be stored: ${err.message}`);
  if (isDependencyDown(err)) return unavailable('a dependency is unavailable; retry later');
  log(`internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  return new TaskError('internal', 'internal error');
}
