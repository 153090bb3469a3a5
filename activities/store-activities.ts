import type { AgentRunInput, FinishAgentInput } from '../core/tasks/run/agent-runs';
import type { ApprovalDecisionInput, ApprovalRequestInput, IgnoredDecisionInput } from '../core/tasks/run/approval-changes';
import type { Plan } from '../core/orchestration/plan';
import type { PlanReviewInput } from '../core/tasks/run/plan-review';
import type { RoutingInput } from '../core/tasks/run/step-types';
import type { CancellationRequestInput } from '../core/tasks/run/task-lifecycle';
import type { ControlChangeInput, MessageReceivedInput } from '../core/tasks/run/task-steering';
import type { TaskWrites } from '../core/tasks/run/task-writes';
import { withTemporalRetry } from './failures';

/** Short store writes and checks: milliseconds each, no model or tool call. */
export function createStoreActivities(taskWrites: TaskWrites) {
  return {
    recordCancellationRequest: (input: CancellationRequestInput) => withTemporalRetry(() => taskWrites.recordCancellationRequest(input)),
    recordControlChange: (input: ControlChangeInput) => withTemporalRetry(() => taskWrites.recordControlChange(input)),
    recordMessageReceived: (input: MessageReceivedInput) => withTemporalRetry(() => taskWrites.recordMessageReceived(input)),
    recordPlan: (input: RoutingInput & { plan: Plan }) => withTemporalRetry(() => taskWrites.recordPlan(input, input.plan)),
    recordPlanReview: (input: PlanReviewInput) => withTemporalRetry(() => taskWrites.recordPlanReview(input)),
    startAgent: (input: AgentRunInput) => withTemporalRetry(() => taskWrites.startAgent(input)),
    finishAgent: (input: FinishAgentInput) => withTemporalRetry(() => taskWrites.finishAgent(input)),
    requestApproval: (input: ApprovalRequestInput) => withTemporalRetry(() => taskWrites.requestApproval(input)),
    recordApprovalDecision: (input: ApprovalDecisionInput) => withTemporalRetry(() => taskWrites.recordApprovalDecision(input)),
    recordIgnoredDecision: (input: IgnoredDecisionInput) => withTemporalRetry(() => taskWrites.recordIgnoredDecision(input)),
    checkPlanText: async (text: string) => taskWrites.checkPlanText(text),
    checkToolArguments: async (input: { tool: string; argumentsText: string }) => taskWrites.checkToolArguments(input),
  };
}
