import { runHandovers, type HandsOver } from '../core/tasks/run/run-handover';
import { createTaskRun, type TaskRunDeps } from '../core/tasks/run/task-run';
import { failPermanentErrorsFast } from './failures';
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

type Activity = (input: never) => Promise<unknown>;

/**
 * Each activity of a Temporal reset's run carries the run's handover: whichever runs first makes
 * the reset's store run the task's (core/tasks/run/run-handover.ts) before it writes to it.
 */
function takingOverResets<A extends Record<string, Activity>>(activities: A, handovers: ReturnType<typeof runHandovers>): A {
  const wrapped = Object.entries(activities).map(([name, activity]) => [
    name,
    async (input: HandsOver) => {
      if (input?.handover) await failPermanentErrorsFast(() => handovers.takeOver(input.handover!));
      return activity(input as never);
    },
  ]);
  return Object.fromEntries(wrapped) as A;
}

/** Every activity the worker registers, bound to one task run. */
export function createActivities(deps: TaskRunDeps) {
  const taskRun = createTaskRun(deps);
  const activities = {
    ...createLifecycleActivities(taskRun),
    ...createStoreActivities(taskRun),
    ...createModelActivities(taskRun),
    ...createToolActivities(taskRun),
  };
  return takingOverResets(activities, runHandovers(deps));
}

export type WeftActivities = ReturnType<typeof createActivities>;
