import { runHandovers, type HandsOver } from '../core/tasks/run/run-handover';
import type { CarriesStart } from '../core/tasks/run/task-lifecycle';
import { createTaskRun, type TaskRun, type TaskRunDeps } from '../core/tasks/run/task-run';
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
 * What an activity's input carries to be recorded before the activity writes: each activity of a
 * Temporal reset's run carries the run's handover, and whichever runs first makes the reset's store
 * run the task's (core/tasks/run/run-handover.ts); a task's start, until its first model step has
 * returned, is recorded by whichever runs first (CarriesStart, core/tasks/run/task-lifecycle.ts).
 * The handover comes first: in a reset's run the start is the task's first run's, recorded already.
 */
function recordingWhatInputsCarry<A extends Record<string, Activity>>(activities: A, handovers: ReturnType<typeof runHandovers>, taskRun: TaskRun): A {
  const wrapped = Object.entries(activities).map(([name, activity]) => [
    name,
    async (input: HandsOver & CarriesStart) => {
      if (input?.handover) await failPermanentErrorsFast(() => handovers.takeOver(input.handover!));
      if (input?.start) await failPermanentErrorsFast(() => taskRun.start(input.start!));
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
  return recordingWhatInputsCarry(activities, runHandovers(deps), taskRun);
}

export type WeftActivities = ReturnType<typeof createActivities>;
