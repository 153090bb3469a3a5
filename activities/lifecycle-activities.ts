import type { FinishTaskInput, StartTaskInput } from '../core/tasks/run/task-lifecycle';
import type { TaskRun } from '../core/tasks/run/task-run';
import { failPermanentErrorsFast } from './failures';

/** A task's start and end: run as local activities (see workflows/activity-stubs.ts). */
export function createLifecycleActivities(taskRun: TaskRun) {
  return {
    startTask: (input: StartTaskInput) => failPermanentErrorsFast(() => taskRun.start(input)),
    finishTask: (input: FinishTaskInput) => failPermanentErrorsFast(() => taskRun.finish(input)),
  };
}
