import { randomUUID } from 'node:crypto';
import { createPool } from '../../core/db/database';
import { withTransaction } from '../../core/db/transaction';
import { findTask, insertTask, recordTaskOutcome } from '../../core/tasks/task-index';
import { TaskStatus } from '../../core/tasks/task-status';
import { recordStepUsage } from '../../core/tasks/task-usage';

// A task's usage totals are the sum of its recorded steps: summed when the task ends, and summed
// again by a step that commits after the end (a cancelled agent's call that finished anyway), so
// the totals never miss a step, whichever of the two commits first.

const pool = createPool(process.env.DATABASE_URL!);
afterAll(() => pool.end());

async function runningTask(): Promise<string> {
  const taskId = `usage-${randomUUID()}`;
  await insertTask(pool, {
    taskId,
    workflowId: taskId,
    runId: taskId,
    tenantId: 'usage',
    userId: 'alice',
    sessionId: '',
    query: 'q',
    mode: 'STANDARD',
    status: TaskStatus.Running,
    createdAt: new Date(),
  });
  return taskId;
}

const step = (taskId: string, stepKey: string, tokens: number) => ({
  taskId,
  stepKey,
  agentId: 'main',
  model: 'm',
  promptTokens: tokens,
  completionTokens: 0,
  totalTokens: tokens,
  costUsd: tokens / 1000,
  at: new Date(),
});
const recordStep = (taskId: string, stepKey: string, tokens: number) => withTransaction(pool, (tx) => recordStepUsage(tx, step(taskId, stepKey, tokens)));
const end = (taskId: string) =>
  withTransaction(pool, (tx) =>
    recordTaskOutcome(tx, taskId, { status: TaskStatus.Cancelled, result: '', errorMessage: 'cancelled', model: 'm', completedAt: new Date() }),
  );
const totals = async (taskId: string) => {
  const task = await findTask(pool, taskId);
  return { tokens: task!.usage.totalTokens, costUsd: task!.usage.costUsd };
};

describe("a task's usage totals", () => {
  it('are summed from its steps when it ends, and a step of a running task leaves them alone', async () => {
    const taskId = await runningTask();
    await recordStep(taskId, 'step-0', 10);
    await recordStep(taskId, 'step-1', 20);
    expect(await totals(taskId)).toEqual({ tokens: 0, costUsd: 0 });
    await end(taskId);
    expect(await totals(taskId)).toEqual({ tokens: 30, costUsd: 0.03 });
  });

  it('take in a step that commits after the task ended', async () => {
    const taskId = await runningTask();
    await recordStep(taskId, 'step-0', 10);
    await end(taskId);
    await recordStep(taskId, 'late', 5);
    expect(await totals(taskId)).toEqual({ tokens: 15, costUsd: 0.015 });
    // The same step recorded again (a retry) counts once.
    await recordStep(taskId, 'late', 5);
    expect(await totals(taskId)).toEqual({ tokens: 15, costUsd: 0.015 });
  });

  it('take in a step whose transaction waited for the end to commit', async () => {
    const taskId = await runningTask();
    await recordStep(taskId, 'step-0', 10);
    // The end holds the task's row; the late step's statements are sent meanwhile and wait for it.
    const ending = await pool.connect();
    try {
      await ending.query('BEGIN');
      await recordTaskOutcome(ending, taskId, { status: TaskStatus.Cancelled, result: '', errorMessage: 'cancelled', model: 'm', completedAt: new Date() });
      const late = recordStep(taskId, 'late', 7);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await ending.query('COMMIT');
      await late;
    } finally {
      ending.release();
    }
    expect(await totals(taskId)).toEqual({ tokens: 17, costUsd: 0.017 });
  });
});
