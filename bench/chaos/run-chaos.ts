import { setTimeout as pause } from 'node:timers/promises';
import type { Pool } from 'pg';
import { verifyTask } from '../../cli/verify';
import { createRuntimeStore } from '../../core/store';
import { startChaosStack } from './chaos-stack';
import { killWorkers, restartApiUnderStreams, restartServices } from './faults';
import { streamFigures, taskFigures, type ChaosFigures } from './figures';
import { scriptedTask, startApprover, submitUntilAnswered, type FollowedStream } from './load';

// One chaos run: a mixed load submitted over `spreadMs` while the faults happen (faults.ts), then
// every task checked with `weft verify` and every stream against the task's log.

export interface ChaosOptions {
  tasks: number;
  workerKills: number;
  apiRestarts: number;
  /** Live streams opened before each API restart. */
  streams: number;
  restartServices: boolean;
  spreadMs: number;
  /** A workflow bundle already built (tests have one). */
  workflowBundle?: string;
  log(line: string): void;
}

export async function runChaos(options: ChaosOptions): Promise<ChaosFigures> {
  const stack = await startChaosStack(options.workflowBundle);
  const approver = startApprover(stack.client);
  const started = Date.now();
  const tasks: Array<{ taskId: string; workflowId: string }> = [];
  const followed: Array<Promise<FollowedStream>> = [];
  const recovery: Record<string, number[]> = { apiRestartMs: [], servicesRestartMs: [] };
  try {
    let next = 0;
    const submit = async () => {
      const submitted = await submitUntilAnswered(stack.client, scriptedTask(stack.model, String(started), next++));
      tasks.push({ taskId: submitted.task_id, workflowId: submitted.workflow_id });
      return submitted.task_id;
    };
    const submitting = (async () => {
      for (let i = 0; i < options.tasks; i++) {
        await submit();
        await pause(options.spreadMs / options.tasks);
      }
    })();
    // R2 in the load's first half, then R3 two thirds into it: each fault on its own.
    const restartingApi = (async () => {
      for (let r = 0; r < options.apiRestarts; r++) {
        await pause(options.spreadMs / (2 * options.apiRestarts + 1));
        const streams = {
          streams: options.streams,
          recentWorkflows: tasks.slice(-4).map((task) => task.workflowId),
          deadline: started + options.spreadMs + 300_000,
        };
        recovery.apiRestartMs!.push(await restartApiUnderStreams(stack, approver, streams, followed));
      }
    })();
    const restarting = (async () => {
      await Promise.all([restartingApi, pause((2 * options.spreadMs) / 3)]);
      if (options.restartServices) recovery.servicesRestartMs!.push(await restartServices(stack, submit));
    })();
    await Promise.all([killWorkers(stack, options.workerKills, options.spreadMs), restartingApi, restarting, submitting]);
    options.log(`load submitted (${tasks.length} tasks) after ${Date.now() - started} ms; waiting for every task to end`);
    const taskIds = tasks.map((task) => task.taskId);
    await untilAllEnded(stack.pool, taskIds, 300_000);
    const deps = { pool: stack.pool, store: createRuntimeStore(stack.pool), temporal: stack.temporal };
    const verified = await Promise.all(taskIds.map(async (taskId) => ({ taskId, problems: await verifyTask(deps, taskId) })));
    return {
      wallMs: Date.now() - started,
      ...(await taskFigures(stack.pool, taskIds, verified)),
      ...(await streamFigures(stack.pool, await Promise.all(followed))),
      recovery,
      faults: { workerKills: options.workerKills, apiRestarts: options.apiRestarts, servicesRestarted: options.restartServices },
    };
  } finally {
    await approver.stop();
    await stack.stop();
  }
}

async function untilAllEnded(pool: Pool, taskIds: string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const { rows } = await pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM tasks WHERE task_id = ANY($1) AND status IN ('COMPLETED','FAILED','CANCELLED','TIMEOUT')`,
      [taskIds],
    );
    if (Number(rows[0]!.n) === taskIds.length) return;
    await pause(500);
  }
}
