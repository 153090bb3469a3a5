import { setTimeout as pause } from 'node:timers/promises';
import { pendingApprovals } from '../../test/support/orchestration';
import type { ChaosStack } from './chaos-stack';
import { followStream, untilAnswered, type Approver, type FollowedStream } from './load';

// The faults of a chaos run. R1: workers SIGKILLed at random moments. R2: the API SIGKILLed under
// live streams, whose clients resume with their last event id. R3: Postgres and Temporal restarted.

const randomBetween = (low: number, high: number) => low + Math.random() * (high - low);

/** R1: `kills` times over about `spanMs`, a random worker is SIGKILLed and started again a moment later. */
export async function killWorkers(stack: ChaosStack, kills: number, spanMs: number): Promise<void> {
  for (let k = 0; k < kills; k++) {
    await pause(randomBetween(0, (2 * spanMs) / Math.max(1, kills)));
    const victim = stack.workers[Math.floor(Math.random() * stack.workers.length)]!;
    await victim.kill();
    await pause(randomBetween(200, 1500));
    await victim.start();
  }
}

/**
 * The tasks that wait for a decision once one does (approvals are held): a loaded machine may take
 * many seconds to bring the first approval task to its approval. None within a minute: none.
 */
async function tasksWaitingForApproval(stack: ChaosStack): Promise<string[]> {
  const giveUpAt = Date.now() + 60_000;
  for (;;) {
    await pause(1_000);
    const waiting = (await untilAnswered(() => pendingApprovals(stack.client))).approvals.map((approval) => approval.workflow_id);
    if (waiting.length > 0 || Date.now() > giveUpAt) return waiting;
  }
}

/**
 * R2: with approvals held (their tasks stay live), `streams` streams are opened on tasks that wait,
 * then the API is SIGKILLed and started again. Returns the API's downtime in ms; the streams join `followed`.
 */
export async function restartApiUnderStreams(
  stack: ChaosStack,
  approver: Approver,
  options: { streams: number; recentWorkflows: string[]; deadline: number },
  followed: Array<Promise<FollowedStream>>,
): Promise<number> {
  await approver.hold(true);
  try {
    const waiting = await tasksWaitingForApproval(stack);
    const live = waiting.length > 0 ? waiting : options.recentWorkflows;
    for (let s = 0; s < options.streams; s++) followed.push(followStream(stack.address, stack.apiKey, live[s % live.length]!, options.deadline));
    await pause(1_000);
    const down = Date.now();
    await stack.api.kill();
    await stack.api.start();
    return Date.now() - down;
  } finally {
    await approver.hold(false);
  }
}

/**
 * R3: Postgres and Temporal down together for a second. Recovered once a task submitted after they
 * are back has run to its end (the API, Temporal, a worker and the store all serve again): the ms
 * from the restart until then.
 */
export async function restartServices(stack: ChaosStack, submitProbe: () => Promise<string>): Promise<number> {
  const down = Date.now();
  await Promise.all([stack.postgres.restart(1_000), stack.temporalServer.restart(1_000)]);
  const probe = await submitProbe();
  for (;;) {
    const { rows } = await stack.pool.query<{ status: string }>('SELECT status FROM tasks WHERE task_id = $1', [probe]).catch(() => ({ rows: [] }));
    if (rows[0] && !['QUEUED', 'RUNNING'].includes(rows[0].status)) return Date.now() - down;
    if (Date.now() - down > 300_000) return Number.NaN;
    await pause(100);
  }
}
