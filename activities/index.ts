import { createModelStepActivities, type ModelStepDeps } from './model-step';
import { createTaskLifecycleActivities } from './task-lifecycle';

export type ActivityDeps = ModelStepDeps;

/** Every activity the worker registers, bound to its dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createTaskLifecycleActivities(deps),
    ...createModelStepActivities(deps),
  };
}

export type WeftActivities = ReturnType<typeof createActivities>;
