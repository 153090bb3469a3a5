import type { AgentRunInput, FinishAgentInput } from '../core/tasks/run/agent-runs';
import type { ApprovalDecisionInput, ApprovalRequestInput, IgnoredDecisionInput } from '../core/tasks/run/approval-changes';
import type { Plan } from '../core/orchestration/plan';
import type { PlanReviewInput } from '../core/tasks/run/plan-review';
import type { RoutingInput } from '../core/tasks/run/routing';
import type { CancellationRequestInput } from '../core/tasks/run/task-lifecycle';
import type { ControlChangeInput, MessageReceivedInput } from '../core/tasks/run/task-steering';
import type { TaskRun } from '../core/tasks/run/task-run';
import { failPermanentErrorsFast } from './failures';

/** Short store writes and checks: milliseconds each, no model or tool call. */
export function createStoreActivities(taskRun: TaskRun) {
  return {
    recordCancellationRequest: (input: CancellationRequestInput) => failPermanentErrorsFast(() => taskRun.recordCancellationRequest(input)),
    recordControlChange: (input: ControlChangeInput) => failPermanentErrorsFast(() => taskRun.recordControlChange(input)),
    recordMessageReceived: (input: MessageReceivedInput) => failPermanentErrorsFast(() => taskRun.recordMessageReceived(input)),
    recordPlan: (input: RoutingInput & { plan: Plan }) => failPermanentErrorsFast(() => taskRun.recordPlan(input, input.plan)),
    recordPlanReview: (input: PlanReviewInput) => failPermanentErrorsFast(() => taskRun.recordPlanReview(input)),
    startAgent: (input: AgentRunInput) => failPermanentErrorsFast(() => taskRun.startAgent(input)),
    finishAgent: (input: FinishAgentInput) => failPermanentErrorsFast(() => taskRun.finishAgent(input)),
    requestApproval: (input: ApprovalRequestInput) => failPermanentErrorsFast(() => taskRun.requestApproval(input)),
    recordApprovalDecision: (input: ApprovalDecisionInput) => failPermanentErrorsFast(() => taskRun.recordApprovalDecision(input)),
    recordIgnoredDecision: (input: IgnoredDecisionInput) => failPermanentErrorsFast(() => taskRun.recordIgnoredDecision(input)),
    checkPlanText: async (text: string) => taskRun.checkPlanText(text),
    checkToolArguments: async (input: { tool: string; argumentsText: string }) => taskRun.checkToolArguments(input),
  };
}
