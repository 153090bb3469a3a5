import type { MemoryNoteInput } from '../core/tasks/run/memory-note';
import type { ModelStepInput } from '../core/tasks/run/model-step';
import type { PlanRevisionInput, RoutingInput } from '../core/tasks/run/routing';
import type { TaskRun } from '../core/tasks/run/task-run';
import { failPermanentErrorsFast } from './failures';
import { activityStep } from './activity-step';

/** Activities that call a model: long, heartbeating, retried with backoff. */
export function createModelActivities(taskRun: TaskRun) {
  return {
    analyzeComplexity: (input: RoutingInput) => failPermanentErrorsFast(() => taskRun.route(input, activityStep())),
    decomposeTask: (input: RoutingInput) => failPermanentErrorsFast(() => taskRun.decompose(input, activityStep())),
    revisePlan: (input: PlanRevisionInput) => failPermanentErrorsFast(() => taskRun.revisePlan(input, activityStep())),
    runModelStep: (input: ModelStepInput) => failPermanentErrorsFast(() => taskRun.runModelStep(input, activityStep())),
    draftMemoryNote: (input: MemoryNoteInput) => failPermanentErrorsFast(() => taskRun.draftMemoryNote(input, activityStep())),
  };
}
