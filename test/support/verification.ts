import type { Client } from '@temporalio/client';
import type { Pool } from 'pg';
import { verifyTask } from '../../cli/verify';
import type { RuntimeStore } from '../../core/store';
import { taskWorkflowIdOf } from '../../core/tasks/run/task-ref';

// `weft verify` closes every end-to-end test file: whatever the file did to its tasks, Temporal and
// the store agree on every one of them.

export interface VerifiedTasks {
  deps: { pool: Pool; store: RuntimeStore; temporal: Client };
  taskIds: string[];
}

/** What verify still finds after the tasks settle: a task between two of its writes may disagree for a moment. */
async function settledDisagreements({ deps, taskIds }: VerifiedTasks, settleMs = 15_000): Promise<string[]> {
  const deadline = Date.now() + settleMs;
  let pending = taskIds;
  for (;;) {
    const found = await Promise.all(pending.map(async (taskId) => ({ taskId, problems: await verifyTask(deps, taskId) })));
    const disagreeing = found.filter((task) => task.problems.length > 0);
    if (disagreeing.length === 0 || Date.now() > deadline) return disagreeing.flatMap((task) => task.problems);
    pending = disagreeing.map((task) => task.taskId);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/**
 * `weft verify` of a task that has finished, once Temporal has closed its workflow too: the store
 * records the end in the workflow's last activity, a moment before the workflow closes.
 */
export async function verifyFinishedTask(deps: VerifiedTasks['deps'], taskId: string): Promise<string[]> {
  await deps.temporal.workflow
    .getHandle(taskWorkflowIdOf(taskId))
    .result()
    .catch(() => undefined);
  return verifyTask(deps, taskId);
}

/** The last test of an end-to-end file: every task the file ran verifies clean. */
export function itLeavesEveryTaskVerified(tasks: () => Promise<VerifiedTasks>): void {
  it('leaves every task it ran verified clean by weft verify', async () => {
    const verified = await tasks();
    expect(verified.taskIds.length).toBeGreaterThan(0);
    expect(await settledDisagreements(verified)).toEqual([]);
  }, 60_000);
}
