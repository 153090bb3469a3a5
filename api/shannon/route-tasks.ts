import type { ShannonCall, ShannonDeps } from './shannon-route';
import { badRequest } from './shannon-route';
import { objectOf } from './route-adapter';
import { isPathSafeId } from '../tasks/path-safe-ids';
import { submittedTaskInput } from '../tasks/task-start';
import { idempotencyKeyOf } from '../http/credentials';
import type { TaskSubmission } from '../tasks/task-submission';
import type { TaskWorkflowInput } from '../../workflows/task-workflow-types';

// What the routes that run work of their own (a tool, a named agent) share: the body's known fields
// and optional session, and the task's input, checked as SubmitTask checks a submission.

/** The body's fields, refusing any other; `session_id` checked when given. */
export function bodyFields<F extends string>(body: unknown, fields: readonly F[]): Partial<Record<F, unknown>> & { session_id?: string } {
  const request = objectOf(body ?? {});
  if (!request) throw badRequest('the request body must be a JSON object');
  const unknown = Object.keys(request).find((name) => name !== 'session_id' && !(fields as readonly string[]).includes(name));
  if (unknown) throw badRequest(`unknown field ${unknown}`);
  const sessionId = request.session_id;
  if (sessionId !== undefined && (typeof sessionId !== 'string' || !isPathSafeId(sessionId))) {
    throw badRequest('session_id must be 1-128 letters, digits, ".", "_", ":" or "-", starting with a letter or digit');
  }
  return request as Partial<Record<F, unknown>> & { session_id?: string };
}

/** A single-agent task's input for `query`, with its id from the caller's Idempotency-Key or new. */
export function routeTaskInput(
  { principal, headers }: Pick<ShannonCall, 'principal' | 'headers'>,
  deps: Pick<ShannonDeps, 'tasks'>,
  task: TaskSubmission,
): TaskWorkflowInput {
  return submittedTaskInput(principal, idempotencyKeyOf(headers), task, deps.tasks.limits);
}
