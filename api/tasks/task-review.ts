import { QueryNotRegisteredError, WorkflowNotFoundError } from '@temporalio/client';
import type { Principal } from '../../core/auth/api-keys';
import type { Plan } from '../../core/orchestration/plan';
import type { RuntimeStore } from '../../core/store';
import { readPlanReview } from '../../core/tasks/run/plan-review';
import { maxReviewRounds, planReviewQuery, reviewPlanUpdate, type PlanReviewView, type ReviewAction } from '../../workflows/messages';
import { invalid, notFound, preconditionFailed } from './task-errors';
import { refusedAsPrecondition, steerableTask, steererOf, type TaskControlDeps } from './task-control';
import { ownTaskOf } from './task-ownership';

// A plan's review in rounds, for every door (Shannon's /api/v1/tasks/{id}/review, gRPC's
// ReviewTask and GetTaskReview, `weft review`): the task workflow's reviewPlan Update and
// planReview query, which Temporal's CLI sends too, and the rounds the task's run log holds.

export interface TaskReviewDeps extends TaskControlDeps {
  store: RuntimeStore;
}

export interface ReviewRound {
  role: 'assistant' | 'user';
  /** The plan proposed (its JSON), or the person's feedback. */
  message: string;
  round: number;
  by: string;
  at: Date;
}

export interface TaskReview {
  status: PlanReviewView['status'];
  round: number;
  version: number;
  maxRounds: number;
  currentPlan: Plan;
  rounds: ReviewRound[];
  query: string;
  lastError?: string;
}

/** The plan under review as the workflow holds it now, or undefined once it does not (ended, or no review). */
async function liveReview(deps: TaskReviewDeps, workflowId: string): Promise<PlanReviewView | undefined> {
  try {
    return await deps.temporal.workflow.getHandle(workflowId).query(planReviewQuery);
  } catch (err) {
    if (err instanceof QueryNotRegisteredError || err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
}

/** The task's review: its rounds from the run log, its state from the workflow while it runs. */
export async function taskReview(deps: TaskReviewDeps, principal: Principal, reference: string): Promise<TaskReview> {
  const task = await ownTaskOf(deps, reference, principal);
  const entries = task.record ? await readPlanReview(deps.store, task.record.runId) : [];
  const running = !task.record || task.record.status === 'RUNNING' || task.record.status === 'QUEUED';
  const live = running ? await liveReview(deps, task.workflowId) : undefined;
  const proposed = entries.filter((entry) => entry.kind === 'proposed');
  if (!live && proposed.length === 0) throw notFound(`task ${reference} has no plan under review`);
  const decision = entries.find((entry): entry is typeof entry & { kind: 'approved' | 'rejected' } => entry.kind === 'approved' || entry.kind === 'rejected');
  const rounds = entries.flatMap((entry): ReviewRound[] => {
    if (entry.kind === 'proposed') return [{ role: 'assistant', message: JSON.stringify(entry.plan), round: entry.round, by: entry.by, at: entry.at }];
    if (entry.kind === 'feedback') return [{ role: 'user', message: entry.message, round: entry.round, by: entry.by, at: entry.at }];
    return [];
  });
  const status = live?.status ?? decision?.kind ?? (running ? 'reviewing' : 'timed_out');
  return {
    status,
    round: live?.round ?? Math.max(0, ...entries.filter((entry) => entry.kind === 'feedback').map((entry) => entry.round)),
    version: live?.version ?? proposed.length,
    maxRounds: live?.maxRounds ?? maxReviewRounds,
    currentPlan: live?.plan ?? (proposed.at(-1) as { plan: Plan }).plan,
    rounds,
    query: task.record?.query ?? '',
    ...(live?.lastError ? { lastError: live.lastError } : {}),
  };
}

/** A review in the shape both doors answer with (gRPC's GetTaskReviewResponse, Shannon's GET .../review). */
export function taskReviewJson(review: TaskReview) {
  return {
    status: review.status,
    round: review.round,
    version: review.version,
    max_rounds: review.maxRounds,
    current_plan: JSON.stringify(review.currentPlan),
    rounds: review.rounds.map((r) => ({ role: r.role, message: r.message, round: r.round, by: r.by, timestamp: r.at.toISOString() })),
    query: review.query,
    last_error: review.lastError ?? '',
  };
}

const actions = ['feedback', 'approve', 'reject'];

/** Feedback the planner revises the plan with, or the decision; the review afterwards, as the workflow holds it. */
export async function reviewTask(deps: TaskReviewDeps, principal: Principal, reference: string, action: Omit<ReviewAction, 'by'>): Promise<PlanReviewView> {
  if (!actions.includes(action.action)) throw invalid('action must be "feedback", "approve" or "reject"');
  if (action.action === 'feedback' && !action.message?.trim()) throw invalid('feedback needs a message');
  const task = await steerableTask(deps, reference, principal);
  if (!(await liveReview(deps, task.workflowId))) throw preconditionFailed(`task ${reference} has no plan under review`);
  return refusedAsPrecondition(() =>
    deps.temporal.workflow.getHandle(task.workflowId).executeUpdate(reviewPlanUpdate, { args: [{ ...action, by: steererOf(principal) }] }),
  );
}
