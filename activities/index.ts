import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { createTaskWrites, type TaskWriteDeps } from '../core/tasks/run/task-writes';
import { createLifecycleActivities } from './lifecycle-activities';
import { createModelActivities } from './model-activities';
import { runContextInterceptor } from './run-context-interceptor';
import { createStoreActivities } from './store-activities';
import { createToolActivities } from './tool-activities';

// Activities are adapters: each is one call into a task's writes (core/tasks/run/task-writes.ts), with the
// heartbeat and the error mapping Temporal needs. The groups match the stubs' timeouts.

export type LifecycleActivities = ReturnType<typeof createLifecycleActivities>;
export type StoreActivities = ReturnType<typeof createStoreActivities>;
export type ModelActivities = ReturnType<typeof createModelActivities>;
export type ToolActivities = ReturnType<typeof createToolActivities>;

/** Every activity the worker registers, bound to the task writes, and the interceptor that applies each one's run context. */
export function createActivities(deps: TaskWriteDeps) {
  const taskWrites = createTaskWrites(deps);
  return {
    activities: {
      ...createLifecycleActivities(taskWrites),
      ...createStoreActivities(taskWrites),
      ...createModelActivities(taskWrites),
      ...createToolActivities(taskWrites),
    },
    interceptors: [runContextInterceptor(deps)] as ActivityInterceptorsFactory[],
  };
}

/** What a worker registers: the activities and their interceptors. */
export type WorkerActivities = ReturnType<typeof createActivities>;
export type WeftActivities = WorkerActivities['activities'];
