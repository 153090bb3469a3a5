import { setTimeout as pause } from 'node:timers/promises';
import type { Pool } from 'pg';
import { verifyTask } from '../../cli/verify';
import { createRuntimeStore } from '../../core/store';
import { startChaosStack, type ChaosStack } from './chaos-stack';
import { crashPostgres, crashTemporal, killApiUnderStreams, killWorkers, type FaultHit } from './faults';
import { faultFigures, streamFigures, taskFigures, type ChaosFigures } from './figures';
import { scriptedTask, startApprover, submitUntilAnswered, type FollowedStream, type ScriptedTask } from './load';
import { judgeFromOutside } from './outside-oracle';
import { decideInterruptedBooking, sideEffectFigures } from './side-effects';

// One chaos run: a mixed load submitted over `spreadMs` while the faults strike (faults.ts), then
// every task judged from outside (outside-oracle.ts, and its side effects at the peer:
// side-effects.ts), by `weft verify`, and every stream against the task's log.

export interface ChaosOptions {
  tasks: number;
  workerKills: number;
  apiKills: number;
  /** Live streams opened before each API kill. */
  streams: number;
  crashServices: boolean;
  spreadMs: number;
  /** A workflow bundle already built (tests have one). */
  workflowBundle?: string;
  log(line: string): void;
}

type SubmittedTask = ScriptedTask & { taskId: string; workflowId: string };

/** The long tasks of the load that are running now: they will write events for a while yet. */
async function runningLongTasks(pool: Pool, tasks: SubmittedTask[]): Promise<string[]> {
  const long = tasks.filter((task) => task.kind === 'long').map((task) => task.taskId);
  const { rows } = await pool.query<{ workflow_id: string }>(`SELECT workflow_id FROM tasks WHERE task_id = ANY($1) AND status = 'RUNNING'`, [long]);
  return rows.map((row) => row.workflow_id);
}

/** Submits the load (into `tasks`) and strikes with every fault; the streams followed, what each fault hit. */
async function loadUnderFaults(stack: ChaosStack, options: ChaosOptions, started: number, tasks: SubmittedTask[]) {
  const followed: Array<Promise<FollowedStream>> = [];
  const hits: FaultHit[] = [];
  let next = 0;
  const submit = async () => {
    const scripted = scriptedTask(stack.model, String(started), next++);
    const sentAt = Date.now();
    const submitted = await submitUntilAnswered(stack.client, scripted.request);
    // A submit the faults held up, in the run's log: what slowed the load down.
    if (Date.now() - sentAt > 2_000) options.log(`submit of ${submitted.task_id} answered after ${Date.now() - sentAt} ms (at ${sentAt - started} ms)`);
    tasks.push({ ...scripted, taskId: submitted.task_id, workflowId: submitted.workflow_id });
  };
  const submitting = (async () => {
    for (let i = 0; i < options.tasks; i++) {
      await submit();
      await pause(options.spreadMs / options.tasks);
    }
  })();
  // The API in the load's first half, Postgres two thirds into it, Temporal near its end: each fault on its own.
  const killingApi = (async () => {
    for (let k = 0; k < options.apiKills; k++) {
      await pause(options.spreadMs / (2 * options.apiKills + 1));
      const streams = { streams: options.streams, liveWorkflows: () => runningLongTasks(stack.pool, tasks), deadline: started + options.spreadMs + 300_000 };
      hits.push(await killApiUnderStreams(stack, streams, followed));
    }
  })();
  const crashing = (async () => {
    if (!options.crashServices) return;
    await Promise.all([killingApi, pause((2 * options.spreadMs) / 3)]);
    hits.push(await crashPostgres(stack));
    await pause(options.spreadMs / 6);
    hits.push(await crashTemporal(stack));
  })();
  const killingWorkers = killWorkers(stack, options.workerKills, options.spreadMs).then((workerHits) => void hits.push(...workerHits));
  await Promise.all([killingWorkers, killingApi, crashing, submitting]);
  return { followed: await Promise.all(followed), hits };
}

export async function runChaos(options: ChaosOptions): Promise<ChaosFigures> {
  const stack = await startChaosStack(options.workflowBundle);
  const tasks: SubmittedTask[] = [];
  const bookingsAsked = new Set<string>();
  const approver = startApprover(stack.client, decideInterruptedBooking(stack.peer, tasks, bookingsAsked));
  const started = Date.now();
  try {
    const { followed, hits } = await loadUnderFaults(stack, options, started, tasks);
    options.log(`load submitted (${tasks.length} tasks) after ${Date.now() - started} ms; waiting for every task to end`);
    const taskIds = tasks.map((task) => task.taskId);
    await untilAllEnded(stack.pool, taskIds, 300_000);
    const deps = { pool: stack.pool, store: createRuntimeStore(stack.pool), temporal: stack.temporal };
    const verified = await Promise.all(taskIds.map(async (taskId) => ({ taskId, problems: await verifyTask(deps, taskId) })));
    return {
      wallMs: Date.now() - started,
      outside: await judgeFromOutside(stack.client, stack.temporal, stack.model.requests, tasks),
      sideEffects: sideEffectFigures(stack.peer, tasks, bookingsAsked),
      ...(await taskFigures(stack.pool, taskIds, verified)),
      ...(await streamFigures(stack.pool, followed)),
      faults: faultFigures(stack.model.requests, hits),
      unexpectedExits: { api: stack.api.unexpectedExits(), workers: stack.workers.reduce((sum, worker) => sum + worker.unexpectedExits(), 0) },
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
