import { createTaskRun, type TaskRunDeps } from '../core/tasks/run/task-run';
import { createLifecycleActivities } from './lifecycle-activities';
import { createModelActivities } from './model-activities';
import { createStoreActivities } from './store-activities';
import { createToolActivities } from './tool-activities';

// Activities are adapters: each is one call into the task run (core/tasks/run/task-run.ts), with the
// heartbeat and the error mapping Temporal needs. The groups match the stubs' timeouts.

export type LifecycleActivities = ReturnType<typeof createLifecycleActivities>;
export type StoreActivities = ReturnType<typeof createStoreActivities>;
export type ModelActivities = ReturnType<typeof createModelActivities>;
export type ToolActivities = ReturnType<typeof createToolActivities>;

/** Every activity the worker registers, bound to one task run. */
export function createActivities(deps: TaskRunDeps) {
  const taskRun = createTaskRun(deps);
  return {
    ...createLifecycleActivities(taskRun),
    ...createStoreActivities(taskRun),
    ...createModelActivities(taskRun),
    ...createToolActivities(taskRun),
  };
}

export type WeftActivities = ReturnType<typeof createActivities>;
