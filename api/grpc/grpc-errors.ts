import { status as GrpcStatus, type ServerErrorResponse } from '@grpc/grpc-js';
import { TaskError, taskErrorOf, type TaskErrorKind } from '../tasks/task-errors';

// The task service's errors as gRPC statuses: one table.

/** The vocabulary's kinds as gRPC statuses. */
export const grpcStatusOf: Record<TaskErrorKind, GrpcStatus> = {
  invalid: GrpcStatus.INVALID_ARGUMENT,
  not_found: GrpcStatus.NOT_FOUND,
  conflict: GrpcStatus.ALREADY_EXISTS,
  precondition_failed: GrpcStatus.FAILED_PRECONDITION,
  exhausted: GrpcStatus.RESOURCE_EXHAUSTED,
  unavailable: GrpcStatus.UNAVAILABLE,
  permission_denied: GrpcStatus.PERMISSION_DENIED,
  unauthenticated: GrpcStatus.UNAUTHENTICATED,
  timed_out: GrpcStatus.DEADLINE_EXCEEDED,
  cancelled: GrpcStatus.CANCELLED,
  internal: GrpcStatus.INTERNAL,
};

/**
 * Messages travel in a response header, and many echo the caller's input; a long one would break the
 * connection's header limits, so they are cut.
 */
const maxDetailsLength = 1_000;
const bounded = (details: string) => (details.length > maxDetailsLength ? `${details.slice(0, maxDetailsLength)}…` : details);

export function toServiceError(err: unknown, log: (line: string) => void): Partial<ServerErrorResponse> {
  const error = taskErrorOf(err, log);
  return { code: grpcStatusOf[error.kind], details: bounded(error.message) };
}

/** The kinds of gRPC statuses that have no kind of their own. */
const kindOfOtherStatus: Partial<Record<GrpcStatus, TaskErrorKind>> = {
  [GrpcStatus.OUT_OF_RANGE]: 'invalid',
  [GrpcStatus.ABORTED]: 'conflict',
};

/** A gRPC call's failure (its status and details) in the task service's words, for a door that made the call; any other failure as it is. */
export function fromGrpcFailure(err: unknown): unknown {
  const { code, details } = (err ?? {}) as { code?: unknown; details?: unknown };
  if (typeof code !== 'number' || typeof details !== 'string') return err;
  const kind = (Object.keys(grpcStatusOf) as TaskErrorKind[]).find((k) => grpcStatusOf[k] === code) ?? kindOfOtherStatus[code as GrpcStatus] ?? 'internal';
  return new TaskError(kind, kind === 'internal' && !details ? 'internal error' : details);
}
