import { reviewAnswer, reviewBody, taskReviewAnswer } from './shannon-schemas';
import { createRuntimeStore } from '../../core/store';
import { reviewTask, taskReview, taskReviewJson } from '../tasks/task-review';
import type { PlanReviewView, ReviewAction } from '../../workflows/messages';
import { objectOf } from './route-adapter';
import { badRequest, type ShannonCall, type ShannonDeps, type ShannonRoute } from './shannon-route';

// A plan's review in rounds as Shannon's gateway serves it (GET and POST /api/v1/tasks/{id}/review),
// over the review every door shares (api/tasks/task-review.ts). The plan is Weft's plan
// (its agents as JSON); the version is the ETag, and an If-Match with another refuses the call.

const reviewDeps = (deps: ShannonDeps) => ({ pool: deps.pool, temporal: deps.temporal, store: createRuntimeStore(deps.pool) });

function actionOf({ body, headers }: Pick<ShannonCall, 'body' | 'headers'>): Omit<ReviewAction, 'by'> {
  const request = objectOf(body ?? {});
  if (!request) throw badRequest('the request body must be a JSON object');
  const { action, message, ...unknown } = request;
  if (Object.keys(unknown).length > 0) throw badRequest(`unknown field ${Object.keys(unknown)[0]}`);
  if (action !== 'feedback' && action !== 'approve' && action !== 'reject') throw badRequest('action must be "feedback", "approve" or "reject"');
  if (message !== undefined && typeof message !== 'string') throw badRequest('message must be a string');
  const ifMatch = headers['if-match'];
  const version = typeof ifMatch === 'string' ? Number(ifMatch.replace(/^W\//, '').replace(/"/g, '')) : undefined;
  if (version !== undefined && !Number.isInteger(version)) throw badRequest("If-Match must be the review's version (its ETag)");
  return { action, ...(message !== undefined ? { message } : {}), ...(version !== undefined ? { version } : {}) };
}

function answerOf(action: ReviewAction['action'], view: PlanReviewView) {
  if (action === 'approve') return { status: 'approved', message: 'plan approved: the task runs it' };
  if (action === 'reject') return { status: 'rejected', message: 'plan rejected: the task is cancelled' };
  return {
    status: 'reviewing',
    plan: { message: JSON.stringify(view.plan), round: view.round, version: view.version, intent: 'feedback' },
    ...(view.lastError ? { last_error: view.lastError } : {}),
  };
}

export const reviewRoutes: ShannonRoute[] = [
  {
    method: 'GET',
    path: '/api/v1/tasks/:task_id/review',
    answer: taskReviewAnswer,
    summary: "The plan under review: status, round, version (also the ETag), the current plan and every round's text",
    tag: 'review',
    async handle({ principal, params }, deps) {
      const review = await taskReview(reviewDeps(deps), principal, params.task_id!);
      return { headers: { etag: String(review.version) }, body: taskReviewJson(review) };
    },
  },
  {
    method: 'POST',
    path: '/api/v1/tasks/:task_id/review',
    body: reviewBody,
    answer: reviewAnswer,
    summary: 'Review the plan: {"action": "feedback", "message": "..."} (the planner revises it), "approve" (it runs) or "reject"; If-Match: the version seen',
    tag: 'review',
    async handle(call, deps) {
      const action = actionOf(call);
      const view = await reviewTask(reviewDeps(deps), call.principal, call.params.task_id!, action);
      return { headers: { etag: String(view.version) }, body: answerOf(action.action, view) };
    },
  },
];
