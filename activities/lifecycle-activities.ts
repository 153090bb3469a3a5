import type { StartTaskInput } from '../core/tasks/run/task-lifecycle';
import type { FinishTaskInput } from '../core/tasks/run/task-end';
import type { TaskWrites } from '../core/tasks/run/task-writes';
import { withTemporalRetry } from './failures';

/** A task's start and end: run as local activities (see workflows/activity-stubs.ts). */
export function createLifecycleActivities(taskWrites: TaskWrites) {
  return {
    startTask: (input: StartTaskInput) =>
      withTemporalRetry(async () => {
        const { proceed, tools } = await taskWrites.start(input);
        return { proceed, tools };
      }),
    finishTask: (input: FinishTaskInput) => withTemporalRetry(() => taskWrites.finish(input)),
  };
}
