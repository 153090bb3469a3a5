import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { ExecutionMode } from '../core/orchestration/complexity';
import type { Plan } from '../core/orchestration/plan';
import type { TaskMessage } from '../core/tasks/run/model-step';

export type { TaskMessage };

// The messages Weft's workflows handle. Kept apart from the workflow code so the API can import
// them without loading workflow logic.

/**
 * A human's decision on a pending approval. Send it from the API (ApproveTask), or by hand:
 * `temporal workflow signal --workflow-id <id> --name approvalDecision --input '{"approvalId":"...","approved":true,"decidedBy":"me"}'`.
 */
export interface ApprovalDecision {
  approvalId: string;
  approved: boolean;
  feedback?: string;
  /** An edited plan (JSON) or edited tool arguments (JSON), validated like the original. */
  modifiedAction?: string;
  decidedBy?: string;
  /** How the decision came: the API (ApproveTask, after its role and tenant checks), a Temporal signal or update. */
  channel?: DecisionChannel;
}
export type DecisionChannel = 'api' | 'signal' | 'update';
export const approvalDecisionSignal = defineSignal<[ApprovalDecision]>('approvalDecision');

/** What the Web UI's Signal, Update and Query dialogs say about each handler: what it does and what to send. */
export const handlerDescriptions = {
  approvalDecision:
    'Decide the pending approval (the Queries tab\'s taskStatus shows its id). Send {"approvalId": "<id>", "approved": true | false, "feedback": "...", "modifiedAction": "<edited plan or tool arguments as JSON>", "decidedBy": "<you>"}. A decision that cannot apply is shown on the task as an ignored decision; prefer the decideApproval update, which refuses it.',
  decideApproval:
    'Decide the pending approval, refused with the reason when it cannot apply (unknown, decided or expired id, malformed body). Send {"approvalId": "<id>", "approved": true | false, "feedback": "...", "modifiedAction": "...", "decidedBy": "<you>"}.',
  cancelTask: 'Cancel the task with a reason, as CancelTask does: send {"reason": "..."}. Its agents and tools stop, and the reason is recorded.',
  taskStatus: "The task's live view: status, mode, progress, agents, tokens, and the approval it waits for.",
  pauseTask:
    'Pause the task: the model or tool call under way finishes, and no agent starts another step until it is resumed. Send {"reason": "...", "requestedBy": "<you>"}. Refused once the task is ending.',
  resumeTask: 'Resume a paused task where it stopped. Send {"reason": "...", "requestedBy": "<you>"}.',
  controlState: 'Whether the task is paused (since when, by whom, why) or being cancelled.',
  sendMessage:
    'Send the running task a message its agents get with their next model step. Send {"id": "<unique>", "text": "...", "from": "<you>"}; the same id again is delivered once.',
  agentMessage: "A person's message for this agent's next step; sent by the task's workflow.",
  agentHold: "The task holds (true) or releases (false) this agent at its next step boundary; sent by the task's workflow when it is paused or resumed.",
  reviewPlan:
    'Review the plan the task waits with: {"action": "feedback", "message": "...", "by": "<you>"} has the planner revise it (a new round), {"action": "approve"} runs it, {"action": "reject", "message": "why"} cancels the task. Give "version" (planReview\'s) to refuse it if the plan changed since.',
  planReview: "The plan under review: its status, round, version and the plan itself (the rounds' texts are in the task's run log).",
  clientToolResults:
    'The outputs of tools the task\'s OpenAI client runs, for calls the task waits for (TOOL_INVOKED events with client: true): {"results": [{"toolCallId": "<id>", "output": "..."}]}. Refused for a call the task is not waiting for.',
} as const;
/**
 * The same decision as an Update, which cannot vanish: a malformed body, or an approval that is not
 * pending in this workflow (unknown, decided or expired), is refused with the reason, which
 * `temporal workflow update execute --name decideApproval --input '{...}'` and the Web UI show.
 */
export const approvalDecisionUpdate = defineUpdate<{ accepted: true }, [ApprovalDecision]>('decideApproval');

export interface CancelRequest {
  reason: string;
  requestedBy?: string;
}
/** CancelTask: the workflow records the intent with its reason, then cancels its work. */
export const cancelTaskSignal = defineSignal<[CancelRequest]>('cancelTask');

export interface ControlRequest {
  reason?: string;
  requestedBy?: string;
}

/** A task's steering as a person sees it (Shannon's control state). */
export interface ControlState {
  isPaused: boolean;
  /** RFC 3339, workflow time. */
  pausedAt?: string;
  pauseReason?: string;
  pausedBy?: string;
  isCancelled: boolean;
  cancelReason?: string;
  cancelledBy?: string;
}

/**
 * Pause and resume are Updates: the caller learns at once whether it applied. From Temporal's own
 * tools: `temporal workflow update execute --name pauseTask --input '{"reason":"...","requestedBy":"me"}'`.
 */
export const pauseTaskUpdate = defineUpdate<ControlState, [ControlRequest]>('pauseTask');
export const resumeTaskUpdate = defineUpdate<ControlState, [ControlRequest]>('resumeTask');
export const controlStateQuery = defineQuery<ControlState>('controlState');
/**
 * A person's message to the running task: its agents get it with their next model step. An Update,
 * refused with the reason once the task is ending; sent twice with the same id it is delivered once.
 */
export const sendMessageUpdate = defineUpdate<{ accepted: true; duplicate: boolean }, [TaskMessage]>('sendMessage');
/** Sent by a task's workflow to each running agent of its plan: a message for its next step. */
export const agentMessageSignal = defineSignal<[TaskMessage]>('agentMessage');
/** Sent by a task's workflow to each running agent of its plan: hold (true) or go on (false) at the next step. */
export const agentHoldSignal = defineSignal<[boolean]>('agentHold');

/** As many rounds of feedback as Shannon's review allows. */
export const maxReviewRounds = 10;

/** A person's part in a plan's review. */
export interface ReviewAction {
  action: 'feedback' | 'approve' | 'reject';
  /** The feedback (required with it), or why the plan is approved or rejected. */
  message?: string;
  by?: string;
  /** The version the person saw: refused when the plan has changed since. */
  version?: number;
}

export interface PlanReviewView {
  status: 'reviewing' | 'revising' | 'approved' | 'rejected' | 'timed_out';
  /** Rounds of feedback answered so far. */
  round: number;
  /** 1 for the plan first proposed, one more for each revision. */
  version: number;
  maxRounds: number;
  plan: Plan;
  /** Why the last revision kept the plan as it was (the planner's answer was not a valid plan). */
  lastError?: string;
}

/**
 * A plan's review in rounds, as an Update (refused with the reason: not under review, the plan
 * changed since the version given, the rounds used up, a revision under way) and a query:
 * `temporal workflow update execute --name reviewPlan --input '{"action":"approve"}'`.
 */
export const reviewPlanUpdate = defineUpdate<PlanReviewView, [ReviewAction]>('reviewPlan');
export const planReviewQuery = defineQuery<PlanReviewView>('planReview');

export interface PendingApprovalView {
  approvalId: string;
  workflowId: string;
  kind: 'plan' | 'tool';
  proposedAction: unknown;
  reason: string;
}

export interface AgentView {
  agentId: string;
  status: 'PENDING' | 'RUNNING' | 'COMPLETED' | 'FAILED' | 'CANCELLED';
  result: string;
  tokens: number;
  costUsd: number;
}

export interface TaskView {
  status: 'RUNNING' | 'COMPLETED' | 'FAILED' | 'CANCELLED' | 'TIMEOUT';
  mode: ExecutionMode | '';
  progress: number;
  agents: AgentView[];
  pendingApproval?: PendingApprovalView;
  tokens: number;
  costUsd: number;
}
export const taskStatusQuery = defineQuery<TaskView>('taskStatus');

/** The failure type of a task workflow whose task failed; its details hold the TaskWorkflowResult. */
export const taskFailedType = 'TaskFailed';

/** What an OpenAI client sends back: the outputs of its own tools, for calls the task waits for. */
export interface ClientToolResults {
  results: Array<{ toolCallId: string; output: string }>;
}
export const clientToolResultsUpdate = defineUpdate<{ accepted: true }, [ClientToolResults]>('clientToolResults');
