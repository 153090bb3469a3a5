import type { TaskWrites } from '../core/tasks/run/task-writes';
import type { ToolCallInput, ToolOutcomeResolutionInput } from '../core/tasks/run/tool-step';
import type { ClientToolCallsInput, ClientToolResultInput } from '../core/tasks/run/client-tools';
import { withTemporalRetry } from './failures';
import { activityStep } from './activity-step';

/** Tool calls: heartbeating, retried a few times. */
export function createToolActivities(taskWrites: TaskWrites) {
  return {
    runToolCall: (input: ToolCallInput) => withTemporalRetry(() => taskWrites.runToolCall(input, activityStep())),
    resolveToolOutcome: (input: ToolOutcomeResolutionInput) => withTemporalRetry(() => taskWrites.resolveToolOutcome(input, activityStep())),
    announceClientToolCalls: (input: ClientToolCallsInput) => withTemporalRetry(() => taskWrites.announceClientToolCalls(input)),
    recordClientToolResult: (input: ClientToolResultInput) => withTemporalRetry(() => taskWrites.recordClientToolResult(input)),
  };
}
