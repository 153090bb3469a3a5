import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { setTimeout as pause } from 'node:timers/promises';
import { temporal } from '@temporalio/proto';
import type { ChaosStack } from './chaos-stack';
import { followStream, type FollowedStream } from './load';

// The faults of a chaos run, each a crash (SIGKILL, no shutdown of any kind), each at a moment
// chosen so that work is in flight: R1 a worker whose model call is in flight (every third time
// one running a tool call while the peer with side effects has calls in flight), R2 the API under live streams of tasks that go on
// writing events while it is down, R3 Postgres (its postmaster and backends; fsync on, so it
// recovers from its WAL), R4 the Temporal server. Each says what it interrupted.

const { PendingActivityState } = temporal.api.enums.v1;

const randomBetween = (low: number, high: number) => low + Math.random() * (high - low);

/** What one fault hit: model and side-effect calls in flight when it struck (and, for the API, the events its streamed tasks wrote while it was down). */
export interface FaultHit {
  kind: 'worker' | 'api' | 'postgres' | 'temporal';
  at: number;
  downMs: number;
  modelCallsInFlight: number;
  effectCallsInFlight: number;
  eventsWrittenWhileDown?: number;
}

/** The calls a strike waits for: the model's, or the side-effect peer's. */
type Aim = 'model' | 'effects';
const callsInFlight = (stack: ChaosStack, aim: Aim) => (aim === 'model' ? stack.model.inFlight().length : stack.peer.inFlight());

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

/** Waits (up to 10 s) until the calls aimed at are in flight: the moment to strike. */
async function whileCallsInFlight(stack: ChaosStack, aim: Aim): Promise<void> {
  const giveUpAt = Date.now() + 10_000;
  while (callsInFlight(stack, aim) === 0 && Date.now() < giveUpAt) await pause(10);
}

/** Strikes once the calls aimed at are in flight; `crash` takes the service down and brings it back. */
async function strike(stack: ChaosStack, kind: FaultHit['kind'], crash: () => Promise<void>, aim: Aim = 'model'): Promise<FaultHit> {
  await whileCallsInFlight(stack, aim);
  const [modelCallsInFlight, effectCallsInFlight] = [callsInFlight(stack, 'model'), callsInFlight(stack, 'effects')];
  const at = Date.now();
  await crash();
  return { kind, at, downMs: Date.now() - at, modelCallsInFlight, effectCallsInFlight };
}

/** The workers running a tool call now, as Temporal sees the running workflows' pending activities (a worker's identity is `<pid>@<host>`). */
async function workersInToolCalls(stack: ChaosStack): Promise<ChaosStack['workers']> {
  const pids = new Set<number>();
  for await (const running of stack.temporal.workflow.list({ query: `ExecutionStatus = 'Running'` })) {
    const described = await stack.temporal.workflow.getHandle(running.workflowId, running.runId).describe();
    for (const activity of described.raw.pendingActivities ?? []) {
      const started = activity.state === PendingActivityState.PENDING_ACTIVITY_STATE_STARTED;
      if (started && activity.activityType?.name === 'runToolCall') pids.add(Number(activity.lastWorkerIdentity?.split('@')[0]));
    }
  }
  return stack.workers.filter((worker) => pids.has(worker.pid() ?? -1));
}

/** The inodes of this host's TCP sockets whose local port is one of `ports` (/proc/net/tcp and tcp6). */
function socketInodes(ports: Set<number>): Set<string> {
  const inodes = new Set<string>();
  // tcp6 is absent on a host without IPv6.
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6'].filter((file) => existsSync(file))) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      // Fields: sl, local address (hex ip:port), remote address, state, queues, ..., inode (the tenth).
      const fields = line.trim().split(/\s+/);
      const localPort = Number.parseInt(fields[1]?.split(':').at(-1) ?? '', 16);
      if (ports.has(localPort)) inodes.add(fields[9]!);
    }
  }
  return inodes;
}

/** Whether the process holds one of these sockets (its fds link to `socket:[inode]`). */
function holdsSocket(pid: number, inodes: Set<string>): boolean {
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return inodes.has(/^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1] ?? '');
      } catch {
        return false; // the fd closed while being read
      }
    });
  } catch {
    return false; // the process is gone
  }
}

/** The workers whose model calls are in flight now: each call's caller port, found among the workers' sockets. */
function workersInModelCalls(stack: ChaosStack): ChaosStack['workers'] {
  const inodes = socketInodes(new Set(stack.model.inFlight().flatMap((request) => (request.callerPort ? [request.callerPort] : []))));
  return stack.workers.filter((worker) => holdsSocket(worker.pid() ?? -1, inodes));
}

const anyOf = <T>(items: T[]): T => items[Math.floor(Math.random() * items.length)]!;

/**
 * R1: `kills` times over `spanMs`, each at a random moment of its own slot of the span, a worker
 * whose model call is in flight (every third time: one running a tool call while the side-effect
 * peer has calls in flight) is SIGKILLed, and started again a moment later, as a supervisor would.
 * A kill that waited long for its calls does not push the next past the load.
 */
export async function killWorkers(stack: ChaosStack, kills: number, spanMs: number): Promise<FaultHit[]> {
  const hits: FaultHit[] = [];
  const slotMs = spanMs / Math.max(1, kills);
  const startedAt = Date.now();
  for (let k = 0; k < kills; k++) {
    const aim: Aim = k % 3 === 1 ? 'effects' : 'model';
    await pause(Math.max(0, startedAt + (k + Math.random()) * slotMs - Date.now()));
    await whileCallsInFlight(stack, aim);
    const atWork = aim === 'model' ? workersInModelCalls(stack) : await workersInToolCalls(stack);
    const victim = anyOf(atWork.length > 0 ? atWork : stack.workers);
    const crash = async () => {
      await victim.kill();
      await pause(randomBetween(200, 1500));
      await victim.start();
    };
    hits.push(await strike(stack, 'worker', crash, aim));
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
