import type { TaskWrites } from '../core/tasks/run/task-writes';
import type { ToolCallInput, ToolOutcomeResolutionInput } from '../core/tasks/run/tool-step';
import { failPermanentErrorsFast } from './failures';
import { activityStep } from './activity-step';

/** Tool calls: heartbeating, retried a few times. */
export function createToolActivities(taskWrites: TaskWrites) {
  return {
    runToolCall: (input: ToolCallInput) => failPermanentErrorsFast(() => taskWrites.runToolCall(input, activityStep())),
    resolveToolOutcome: (input: ToolOutcomeResolutionInput) => failPermanentErrorsFast(() => taskWrites.resolveToolOutcome(input, activityStep())),
  };
}
