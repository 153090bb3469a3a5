import type { MemoryNoteInput } from '../core/tasks/run/memory-note';
import type { ModelStepInput } from '../core/tasks/run/model-step';
import type { PlanRevisionInput, RoutingInput } from '../core/tasks/run/routing';
import type { TaskWrites } from '../core/tasks/run/task-writes';
import { failPermanentErrorsFast } from './failures';
import { activityStep } from './activity-step';

/** Activities that call a model: long, heartbeating, retried with backoff. */
export function createModelActivities(taskWrites: TaskWrites) {
  return {
    analyzeComplexity: (input: RoutingInput) => failPermanentErrorsFast(() => taskWrites.route(input, activityStep())),
    decomposeTask: (input: RoutingInput) => failPermanentErrorsFast(() => taskWrites.decompose(input, activityStep())),
    revisePlan: (input: PlanRevisionInput) => failPermanentErrorsFast(() => taskWrites.revisePlan(input, activityStep())),
    runModelStep: (input: ModelStepInput) => failPermanentErrorsFast(() => taskWrites.runModelStep(input, activityStep())),
    draftMemoryNote: (input: MemoryNoteInput) => failPermanentErrorsFast(() => taskWrites.draftMemoryNote(input, activityStep())),
  };
}
