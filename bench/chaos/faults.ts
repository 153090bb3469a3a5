import { setTimeout as pause } from 'node:timers/promises';
import { temporal } from '@temporalio/proto';
import type { ChaosStack } from './chaos-stack';
import { followStream, type FollowedStream } from './load';

// The faults of a chaos run, each a crash (SIGKILL, no shutdown of any kind), each at a moment
// chosen so that work is in flight: R1 a worker, R2 the API under live streams of tasks that go on
// writing events while it is down, R3 Postgres (its postmaster and backends; fsync on, so it
// recovers from its WAL), R4 the Temporal server. Each says what it interrupted.

const { PendingActivityState } = temporal.api.enums.v1;

const randomBetween = (low: number, high: number) => low + Math.random() * (high - low);

/** What one fault hit: model calls in flight when it struck (and, for the API, the events its streamed tasks wrote while it was down). */
export interface FaultHit {
  kind: 'worker' | 'api' | 'postgres' | 'temporal';
  at: number;
  downMs: number;
  modelCallsInFlight: number;
  eventsWrittenWhileDown?: number;
}

/** The events the workflows' logs hold, all together. */
async function eventsIn(stack: ChaosStack, workflowIds: string[]): Promise<number> {
  const { rows } = await stack.pool.query<{ n: string }>('SELECT count(*) AS n FROM task_events WHERE workflow_id = ANY($1)', [workflowIds]);
  return Number(rows[0]!.n);
}

/** Waits (up to `withinMs`) until the workflows have written events after the `from` they had; how many. */
async function untilWritten(stack: ChaosStack, workflowIds: string[], withinMs: number, from?: number): Promise<number> {
  const start = from ?? (await eventsIn(stack, workflowIds));
  let written = (await eventsIn(stack, workflowIds)) - start;
  for (const giveUpAt = Date.now() + withinMs; written === 0 && Date.now() < giveUpAt; written = (await eventsIn(stack, workflowIds)) - start) await pause(100);
  return written;
}

/** Waits (up to 10 s) until the model has calls in flight: the moment to strike. */
async function whileModelCallsInFlight(stack: ChaosStack): Promise<number> {
  const giveUpAt = Date.now() + 10_000;
  while (stack.model.inFlight().length === 0 && Date.now() < giveUpAt) await pause(10);
  return stack.model.inFlight().length;
}

/** Strikes once work is in flight; `crash` takes the service down and brings it back. */
async function strike(stack: ChaosStack, kind: FaultHit['kind'], crash: () => Promise<void>): Promise<FaultHit> {
  const modelCallsInFlight = await whileModelCallsInFlight(stack);
  const at = Date.now();
  await crash();
  return { kind, at, downMs: Date.now() - at, modelCallsInFlight };
}

/** The workers running an activity now, as Temporal sees the running workflows' pending activities (a worker's identity is `<pid>@<host>`). */
async function workersAtWork(stack: ChaosStack): Promise<ChaosStack['workers']> {
  const pids = new Set<number>();
  for await (const running of stack.temporal.workflow.list({ query: `ExecutionStatus = 'Running'` })) {
    const described = await stack.temporal.workflow.getHandle(running.workflowId, running.runId).describe();
    for (const activity of described.raw.pendingActivities ?? []) {
      if (activity.state === PendingActivityState.PENDING_ACTIVITY_STATE_STARTED) pids.add(Number(activity.lastWorkerIdentity?.split('@')[0]));
    }
  }
  return stack.workers.filter((worker) => pids.has(worker.pid() ?? -1));
}

const anyOf = <T>(items: T[]): T => items[Math.floor(Math.random() * items.length)]!;

/**
 * R1: `kills` times over about `spanMs`, a worker that is running an activity while the model has
 * calls in flight is SIGKILLed, and started again a moment later, as a supervisor would.
 */
export async function killWorkers(stack: ChaosStack, kills: number, spanMs: number): Promise<FaultHit[]> {
  const hits: FaultHit[] = [];
  for (let k = 0; k < kills; k++) {
    await pause(randomBetween(0, (2 * spanMs) / Math.max(1, kills)));
    await whileModelCallsInFlight(stack);
    const atWork = await workersAtWork(stack);
    const victim = anyOf(atWork.length > 0 ? atWork : stack.workers);
    hits.push(
      await strike(stack, 'worker', async () => {
        await victim.kill();
        await pause(randomBetween(200, 1500));
        await victim.start();
      }),
    );
  }
  return hits;
}

/**
 * R2: `streams` streams are opened on tasks that are running and will go on writing events (long
 * tasks of many steps), then the API is SIGKILLed and started again while they write. The streams
 * join `followed`; their clients resume with the last event id they saw.
 */
export async function killApiUnderStreams(
  stack: ChaosStack,
  options: { streams: number; liveWorkflows: () => Promise<string[]>; deadline: number },
  followed: Array<Promise<FollowedStream>>,
): Promise<FaultHit> {
  let live = await options.liveWorkflows();
  for (const giveUpAt = Date.now() + 30_000; live.length === 0 && Date.now() < giveUpAt; live = await options.liveWorkflows()) await pause(200);
  if (live.length === 0) throw new Error('no long task was running to stream when the API was to be killed');
  for (let s = 0; s < options.streams; s++) followed.push(followStream(stack.address, stack.apiKey, live[s % live.length]!, options.deadline));
  await pause(1_000);
  // The long tasks running at the kill (those streamed may have ended during the pause on a slow machine),
  // struck once they are seen writing: a task whose worker a kill just took waits out its activity's timeout.
  const writing = [...new Set([...live, ...(await options.liveWorkflows())])];
  await untilWritten(stack, writing, 30_000);
  let eventsWrittenWhileDown = 0;
  const hit = await strike(stack, 'api', async () => {
    await stack.api.kill();
    const before = await eventsIn(stack, writing);
    await pause(randomBetween(500, 1500));
    // Down until the tasks have written while it was, at most 30 s more.
    eventsWrittenWhileDown = await untilWritten(stack, writing, 30_000, before);
    await stack.api.start();
  });
  return { ...hit, eventsWrittenWhileDown };
}

/** R3 and R4: Postgres, then later the Temporal server, SIGKILLed mid-work and started again after a second. */
export const crashPostgres = (stack: ChaosStack) => strike(stack, 'postgres', () => stack.postgres.crash(1_000));
export const crashTemporal = (stack: ChaosStack) => strike(stack, 'temporal', () => stack.temporalServer.crash(1_000));
