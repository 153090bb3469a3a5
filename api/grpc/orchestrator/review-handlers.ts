import { createRuntimeStore } from '../../../core/store';
import type { OrchestratorServiceHandlers } from '../../../protos/generated/shannon/orchestrator/OrchestratorService';
import type { Authenticator } from '../../tasks/auth';
import { authorized } from '../unary';
import type { TaskControlDeps } from '../../tasks/task-control';
import { reviewTask, taskReview, taskReviewJson } from '../../tasks/task-review';

// OrchestratorService's review RPCs: Shannon's SubmitReviewDecision, and Weft's ReviewTask (a round
// of feedback, or the decision) and GetTaskReview, over the review every door shares.

type ReviewHandlers = Pick<OrchestratorServiceHandlers, 'SubmitReviewDecision' | 'ReviewTask' | 'GetTaskReview'>;

export function reviewHandlers(deps: TaskControlDeps & { auth: Authenticator }): ReviewHandlers {
  const reviewDeps = { ...deps, store: createRuntimeStore(deps.pool) };
  return {
    SubmitReviewDecision: authorized(deps.auth, async (request, principal) => {
      await reviewTask(reviewDeps, principal, request.workflow_id, { action: request.approved ? 'approve' : 'reject' });
      return { success: true, message: request.approved ? 'plan approved: the task runs it' : 'plan rejected: the task is cancelled' };
    }),
    ReviewTask: authorized(deps.auth, async (request, principal) => {
      const view = await reviewTask(reviewDeps, principal, request.task_id, {
        action: request.action as 'feedback' | 'approve' | 'reject',
        ...(request.message ? { message: request.message } : {}),
        ...(request.version ? { version: request.version } : {}),
      });
      return { status: view.status, round: view.round, version: view.version, current_plan: JSON.stringify(view.plan), last_error: view.lastError ?? '' };
    }),
    GetTaskReview: authorized(deps.auth, async (request, principal) => taskReviewJson(await taskReview(reviewDeps, principal, request.task_id))),
  };
}
