import type { TaskRun } from '../core/tasks/run/task-run';
import type { ToolCallInput, ToolOutcomeResolutionInput } from '../core/tasks/run/tool-step';
import { failPermanentErrorsFast } from './failures';
import { activityStep } from './activity-step';

/** Tool calls: heartbeating, retried a few times. */
export function createToolActivities(taskRun: TaskRun) {
  return {
    runToolCall: (input: ToolCallInput) => failPermanentErrorsFast(() => taskRun.runToolCall(input, activityStep())),
    resolveToolOutcome: (input: ToolOutcomeResolutionInput) => failPermanentErrorsFast(() => taskRun.resolveToolOutcome(input, activityStep())),
  };
}
