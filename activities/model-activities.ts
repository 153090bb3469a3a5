import type { MemoryNoteInput } from '../core/tasks/run/memory-note';
import type { ModelStepInput } from '../core/tasks/run/model-step';
import type { PlanRevisionInput } from '../core/tasks/run/routing';
import type { RoutingInput } from '../core/tasks/run/step-types';
import type { TaskWrites } from '../core/tasks/run/task-writes';
import { withTemporalRetry } from './failures';
import { activityStep } from './activity-step';

/** Activities that call a model: long, heartbeating, retried with backoff. */
export function createModelActivities(taskWrites: TaskWrites) {
  return {
    analyzeComplexity: (input: RoutingInput) => withTemporalRetry(() => taskWrites.route(input, activityStep())),
    decomposeTask: (input: RoutingInput) => withTemporalRetry(() => taskWrites.decompose(input, activityStep())),
    revisePlan: (input: PlanRevisionInput) => withTemporalRetry(() => taskWrites.revisePlan(input, activityStep())),
    runModelStep: (input: ModelStepInput) => withTemporalRetry(() => taskWrites.runModelStep(input, activityStep())),
    draftMemoryNote: (input: MemoryNoteInput) => withTemporalRetry(() => taskWrites.draftMemoryNote(input, activityStep())),
  };
}
