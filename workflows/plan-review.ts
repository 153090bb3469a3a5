import { ApplicationFailure, condition, setHandler } from '@temporalio/workflow';
import type { Plan } from '../core/orchestration/plan';
import type { PlanReviewEntry } from '../core/tasks/run/plan-review';
import { modelActivities, storeActivities } from './activity-stubs';
import { initialLoopState } from './agent-loop';
import { handlerDescriptions, maxReviewRounds, planReviewQuery, reviewPlanUpdate, type PlanReviewView, type ReviewAction } from './messages';
import { loopOutcome, type TaskOutcome } from './task-outcomes';
import { routingInputOf, taskRunFieldsOf, type TaskScope } from './task-scope';

// A COMPLEX task's plan reviewed in rounds before it runs (the task's `reviewPlan`): a person sends
// feedback, the planner revises the plan with it (a model step, recorded), and so on up to
// maxReviewRounds, until the person approves the plan (it runs as it stands) or rejects it (the
// task is cancelled). Each round is in the run log and the stream (core/tasks/run/plan-review.ts).

const { recordPlanReview } = storeActivities;
const { revisePlan } = modelActivities;

const maxFeedbackChars = 10 * 1024;

export type ReviewOutcome = { kind: 'approved'; plan: Plan; revised: boolean } | { kind: 'stopped'; outcome: TaskOutcome };

function checkAction(view: PlanReviewView, action: ReviewAction): void {
  if (typeof action !== 'object' || action === null || !['feedback', 'approve', 'reject'].includes(action.action)) {
    throw new Error('send {"action": "feedback" | "approve" | "reject", "message": "...", "by": "<you>", "version": N}');
  }
  if (action.message !== undefined && typeof action.message !== 'string') throw new Error('message must be a string');
  if (action.by !== undefined && typeof action.by !== 'string') throw new Error('by must be a string');
  if (view.status === 'revising') throw new Error('the planner is revising the plan with the last feedback: send again once it has answered');
  if (view.status !== 'reviewing') throw new Error(`the plan is no longer under review (${view.status})`);
  if (action.version !== undefined && action.version !== view.version) {
    throw new Error(`the plan has changed since version ${action.version}: it is at version ${view.version}; review that one`);
  }
  if (action.action !== 'feedback') return;
  if (!action.message?.trim()) throw new Error('feedback needs a message');
  if (action.message.length > maxFeedbackChars) throw new Error(`the message is longer than ${maxFeedbackChars} characters`);
  if (view.round >= view.maxRounds) throw new Error(`all ${view.maxRounds} rounds of feedback are used: approve or reject the plan`);
}

/** Waits for the plan's review; the plan to run (revised or not), or how the task ends instead. */
export async function reviewPlan(task: TaskScope, plan: Plan, timeoutMs: number): Promise<ReviewOutcome> {
  const view: PlanReviewView = { status: 'reviewing', round: 0, version: 1, maxRounds: maxReviewRounds, plan };
  let decision: ReviewAction | undefined;
  const record = (entry: PlanReviewEntry) =>
    recordPlanReview({ taskId: task.taskId, ...taskRunFieldsOf(task), sessionId: task.sessionId, entry, atMs: Date.now() });

  setHandler(planReviewQuery, () => view, { description: handlerDescriptions.planReview });
  setHandler(
    reviewPlanUpdate,
    async (action) => {
      if (action.action !== 'feedback') {
        decision = action;
        view.status = action.action === 'approve' ? 'approved' : 'rejected';
        return view;
      }
      const round = view.round + 1;
      view.status = 'revising';
      try {
        await record({ kind: 'feedback', round, message: action.message!, by: action.by ?? '' });
        // Counted once its feedback is recorded: feedback sent again is the next round's.
        view.round = round;
        const revised = await revisePlan.executeWithOptions({ summary: `plan review round ${round}: the planner revises the plan` }, [
          { ...routingInputOf(task), round, plan: view.plan, feedback: action.message! },
        ]);
        if (revised.ok) {
          view.plan = revised.plan;
          view.version += 1;
          delete view.lastError;
        } else {
          view.lastError = `the planner's revision was not a valid plan (${revised.errors.join('; ')}); the plan is unchanged`;
        }
      } catch (err) {
        view.lastError = `the planner could not revise the plan: ${(err as Error).message}`;
        throw ApplicationFailure.nonRetryable(view.lastError);
      } finally {
        view.status = 'reviewing';
      }
      return view;
    },
    { validator: (action) => checkAction(view, action), description: handlerDescriptions.reviewPlan },
  );

  await record({ kind: 'proposed', round: 0, plan, by: 'planner' });
  const decided = await condition(() => view.status === 'approved' || view.status === 'rejected', timeoutMs);
  if (!decided) {
    await condition(() => view.status !== 'revising');
    view.status = 'timed_out';
    return { kind: 'stopped', outcome: loopOutcome({ kind: 'approval_timeout', state: initialLoopState }) };
  }
  const kind = view.status === 'approved' ? 'approved' : 'rejected';
  await record({ kind, round: view.round, message: decision!.message ?? '', by: decision!.by ?? '' });
  if (kind === 'rejected') return { kind: 'stopped', outcome: loopOutcome({ kind: 'rejected', feedback: decision!.message ?? '', state: initialLoopState }) };
  return { kind: 'approved', plan: view.plan, revised: view.version > 1 };
}
