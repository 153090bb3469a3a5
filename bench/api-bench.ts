// Front-door benchmark: `npx tsx bench/api-bench.ts`. Starts its own Temporal dev server and
// database (as `make test` does) and the API as its own process (`api/main.ts`, as `make up` runs it),
// then measures:
// - SubmitTask latency at a steady BENCH_RATE requests/s (default 100) for BENCH_SECONDS (default 20),
//   open loop: requests are sent on schedule whether or not earlier ones have answered (and first
//   BENCH_RATE of each one at a time). No worker polls the queue, so this is the front door alone
//   (validation, auth, workflow start). Beside it, in one-second slices taken in turns, two
//   baselines making the same workflow start SubmitTask made for its first task (the same input,
//   search attributes, memo, summary and priority): sent straight to Temporal by this process (the
//   target's baseline), and through a bare gRPC front door in a process of its own
//   (bench/bare-front-door.ts), which shows what the hop alone costs; and REST's POST /api/v1/tasks,
//   the same submit through the HTTP door (in process: no second hop), beside gRPC's;
// - event delivery latency (the append call, its durable commit included -> a StreamTaskExecution
//   client in its own process has it) with
//   BENCH_STREAMS concurrent streams (default 1,000) over BENCH_TASKS tasks (default 100) and
//   BENCH_CHANNELS connections (default 10), while
//   events are appended at BENCH_EVENT_RATE events/s (default 200);
// - the API process's RSS, idle and at its peak during the streams.
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { Client, Connection } from '@temporalio/client';
import { arrayFromPayloads, defaultPayloadConverter } from '@temporalio/common';
import { createApiKey } from '../core/auth/api-keys';
import { createPool } from '../core/db/database';
import { withTransaction } from '../core/db/transaction';
import { appendTaskEvent } from '../core/events/event-log';
import { EventType } from '../core/events/event-types';
import { insertTask } from '../core/tasks/task-index';
import { createServiceClient, unaryCall } from '../protos/clients';
import '../test/setup/quiet-logs';
import { freePort } from '../test/setup/free-port';
import { startTestServices } from '../test/setup/test-services';
import { apiNodeFlags } from '../infra/processes';
import { rssMb, startReadyProcess, stop } from '../test/support/processes';
import type { TaskWorkflowInput } from '../workflows/task-workflow-types';
import { launchTaskWorkflow } from '../api/tasks/task-start';
import { requestFingerprintMemo } from '../api/tasks/task-ownership';
import { printTable, summarize, timed, type Summary } from './stats';
import { countCpu } from './cpu-accounting';

const rate = Number(process.env.BENCH_RATE ?? 100);
const seconds = Number(process.env.BENCH_SECONDS ?? 20);
const streams = Number(process.env.BENCH_STREAMS ?? 1_000);
const tasks = Number(process.env.BENCH_TASKS ?? 100);
const eventRate = Number(process.env.BENCH_EVENT_RATE ?? 200);
/** Streams share BENCH_CHANNELS HTTP/2 connections (default 10), as that many clients would. */
const channels = Number(process.env.BENCH_CHANNELS ?? 10);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Fires `total` calls at a steady rate whether or not earlier ones have answered (open loop); resolves when all have. */
async function openLoop(total: number, perSecond: number, fire: (i: number) => Promise<unknown>): Promise<number> {
  const begin = performance.now();
  const inFlight: Promise<unknown>[] = [];
  for (let i = 0; i < total; i++) {
    const wait = begin + (i * 1000) / perSecond - performance.now();
    if (wait > 0) await sleep(wait);
    inFlight.push(fire(i));
  }
  await Promise.all(inFlight);
  return (performance.now() - begin) / 1000;
}

/** The workflow start SubmitTask made for a task: its input, queue and request fingerprint, from its history. */
async function startOf(temporal: Client, workflowId: string): Promise<{ input: TaskWorkflowInput; taskQueue: string; fingerprint: string }> {
  const history = await temporal.workflow.getHandle(workflowId).fetchHistory();
  const started = history.events![0]!.workflowExecutionStartedEventAttributes!;
  const [input] = arrayFromPayloads(defaultPayloadConverter, started.input!.payloads!) as [TaskWorkflowInput];
  const fingerprint = defaultPayloadConverter.fromPayload<string>(started.memo!.fields![requestFingerprintMemo]!);
  return { input, taskQueue: started.taskQueue!.name!, fingerprint };
}

/** The items in a random order (Fisher-Yates). */
function shuffled<T>(items: T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

interface Side {
  name: string;
  fire(i: number): Promise<unknown>;
  latencies: number[];
  alone: number[];
  elapsed: number;
}

const sideOf = (name: string, fire: (i: number) => Promise<unknown>): Side => ({ name, fire, latencies: [], alone: [], elapsed: 0 });

/**
 * SubmitTask through the API beside two baselines making the same workflow start (the input,
 * search attributes, memo, summary and priority SubmitTask sent for the first task): straight to
 * Temporal from this process, and through a bare gRPC front door in a process of its own
 * (bench/bare-front-door.ts: the hop alone). Each at a steady rate (open loop), in one-second
 * slices taken in turns: a stall of the dev server (visibility scans, its own housekeeping) or a
 * slow minute of the machine weighs on all alike.
 */
/** POST /api/v1/tasks, refused unless it answers 200. */
function restSubmit(httpPort: number, apiKey: string) {
  return async (i: number) => {
    const answer = await fetch(`http://127.0.0.1:${httpPort}/api/v1/tasks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: `bench rest ${i}` }),
    });
    if (answer.status !== 200) throw new Error(`REST submit answered ${answer.status}: ${await answer.text()}`);
    return answer.json();
  };
}

async function benchSubmitsBesideBaselines(
  address: string,
  httpPort: number,
  apiKey: string,
  apiPid: number,
): Promise<{ sides: Side[]; cpuMsPerRequest: Map<string, number> }> {
  const orchestrator = createServiceClient('orchestrator', address, { apiKey });
  const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const temporal = new Client({ connection });
  const submit = (i: number) => unaryCall(orchestrator, 'SubmitTask', { query: `bench submit ${i}` });
  const first = (await submit(0)) as { workflow_id: string };
  const { input, taskQueue, fingerprint } = await startOf(temporal, first.workflow_id);
  const barePort = await freePort();
  const bareDoor = await startReadyProcess(
    'bench/bare-front-door.ts',
    { BENCH_BARE_PORT: String(barePort), BENCH_TASK_QUEUE: taskQueue, BENCH_TASK_INPUT: JSON.stringify(input), BENCH_REQUEST_FINGERPRINT: fingerprint },
    'bare front door serving',
  );
  const bare = createServiceClient('orchestrator', `127.0.0.1:${barePort}`);
  const sides = [
    sideOf('SubmitTask', submit),
    sideOf('bare front door', (i) => unaryCall(bare, 'SubmitTask', { query: `bench bare ${i}` })),
    sideOf('workflow.start direct', (i) =>
      launchTaskWorkflow(temporal, taskQueue, { ...input, taskId: `direct-${randomUUID()}`, query: `bench direct ${i}` }, fingerprint),
    ),
    sideOf('REST submit', restSubmit(httpPort, apiKey)),
  ];
  try {
    for (let i = 0; i < 20; i++) await Promise.all(sides.map((side) => side.fire(i)));
    // Which side goes first changes at random: a stall that comes every few seconds lands on any.
    const inTurn = () => shuffled(sides);
    // One at a time first: what each adds to a start when nothing queues for the CPU.
    for (let i = 0; i < rate; i++) for (const side of inTurn()) await timed(side.alone, () => side.fire(i));
    const cpuUsed = countCpu([
      { name: 'the API', pids: [apiPid] },
      { name: 'the bare front door', pids: [bareDoor.pid!] },
    ]);
    for (let slice = 0; slice < seconds; slice++) {
      for (const side of inTurn()) side.elapsed += await openLoop(rate, rate, (i) => timed(side.latencies, () => side.fire(i)));
    }
    const cpuMsPerRequest = new Map([...cpuUsed()].map(([name, ms]) => [name, ms / (rate * seconds)]));
    return { sides, cpuMsPerRequest };
  } finally {
    orchestrator.close();
    bare.close();
    await stop(bareDoor);
    await connection.close();
  }
}

/** Event delivery to many concurrent streams in another process, and the API's RSS meanwhile. */
async function benchStreams(pool: Pool, api: ChildProcess, address: string, apiKey: string, tenantId: string) {
  const idleRss = rssMb(api.pid!);
  const workflowIds = Array.from({ length: tasks }, () => `bench-stream-${randomUUID()}`);
  for (const workflowId of workflowIds) {
    const task = { taskId: workflowId, workflowId, runId: workflowId, tenantId, userId: 'bench', sessionId: '', query: 'bench stream' };
    await insertTask(pool, { ...task, mode: 'STANDARD', status: 'RUNNING', createdAt: new Date() });
  }
  const receiver = await startReadyProcess(
    'bench/stream-clients.ts',
    {
      BENCH_API_ADDRESS: address,
      BENCH_API_KEY: apiKey,
      BENCH_WORKFLOW_IDS: workflowIds.join(','),
      BENCH_STREAMS: String(streams),
      BENCH_CHANNELS: String(channels),
    },
    'streams ready',
  );
  let received = '';
  receiver.stdout!.on('data', (chunk: Buffer) => (received += chunk.toString()));
  const receiverDone = new Promise((resolve) => receiver.stdout!.once('end', resolve));

  let peakRss = rssMb(api.pid!);
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssMb(api.pid!))), 100);
  const appends = eventRate * seconds;
  const elapsed = await openLoop(appends, eventRate, (i) =>
    withTransaction(pool, (tx) =>
      appendTaskEvent(tx, {
        workflowId: workflowIds[i % tasks]!,
        key: `bench-${i}`,
        type: EventType.StatusUpdate,
        message: String(Date.now()),
        at: new Date(),
      }),
    ),
  );
  await sleep(2_000); // the last deliveries
  clearInterval(sampler);
  await stop(receiver);
  await receiverDone;
  const deliveries = JSON.parse(received.trim().split('\n').at(-1)!) as number[];
  const summary = summarize(`delivery: append -> client, ${streams} streams`, deliveries, elapsed);
  return { summary, delivered: deliveries.length, expected: appends * (streams / tasks), idleRss, peakRss };
}

async function main(): Promise<void> {
  const services = await startTestServices();
  const pool = createPool(process.env.DATABASE_URL!, { size: 10 });
  const [port, agentPort, llmPort, httpPort] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
  const api = await startReadyProcess(
    'api/main.ts',
    {
      WEFT_TASK_QUEUE: `bench-api-${randomUUID()}`,
      WEFT_GRPC_HOST: '127.0.0.1',
      WEFT_GRPC_PORT: String(port),
      WEFT_AGENT_GRPC_PORT: String(agentPort),
      WEFT_LLM_GRPC_PORT: String(llmPort),
      WEFT_HTTP_PORT: String(httpPort),
      WEFT_API_METRICS_PORT: '0',
      WEFT_RATE_LIMIT_PER_MINUTE: '0',
      // No worker runs the submitted tasks: the tenant's quotas would refuse the front door's load.
      WEFT_TENANT_SUBMITS_PER_MINUTE: '0',
      WEFT_TENANT_MAX_RUNNING_TASKS: '0',
    },
    'api serving gRPC',
    process.env.BENCH_API_NODE_FLAGS !== undefined ? process.env.BENCH_API_NODE_FLAGS.split(' ').filter(Boolean) : apiNodeFlags,
  );
  const tenantId = `bench-${randomUUID()}`;
  const apiKey = await createApiKey(pool, { tenantId, userId: 'bench', roles: [] });
  const address = `127.0.0.1:${port}`;
  try {
    const { sides, cpuMsPerRequest } = await benchSubmitsBesideBaselines(address, httpPort, apiKey, api.pid!);
    const delivery = await benchStreams(pool, api, address, apiKey, tenantId);
    const [submit, bare, direct, rest] = sides.map((side) => summarize(`${side.name} at ${rate}/s (open loop)`, side.latencies, side.elapsed));
    const alone = sides.map((side) => summarize(`${side.name} one at a time`, side.alone, side.alone.reduce((sum, ms) => sum + ms, 0) / 1000));
    console.log('');
    printTable([submit!, rest!, bare!, direct!, ...alone, delivery.summary]);
    const ratio = (a: Summary, b: Summary, q: 'p50' | 'p99') => (a[q] / b[q]).toFixed(2);
    console.log(
      `\nSubmitTask p99 ratio (through the API / straight to Temporal): ${ratio(submit!, direct!, 'p99')} (target <= 1.5); p50 ratio ${ratio(submit!, direct!, 'p50')}`,
    );
    console.log(
      `REST submit beside gRPC SubmitTask: p50 ratio (REST / gRPC) ${ratio(rest!, submit!, 'p50')} (target <= 1.1); p99 ratio ${ratio(rest!, submit!, 'p99')}`,
    );
    console.log(
      `  a bare front door (the hop alone) / straight to Temporal: p99 ${ratio(bare!, direct!, 'p99')}, p50 ${ratio(bare!, direct!, 'p50')}; SubmitTask / the bare front door: p99 ${ratio(submit!, bare!, 'p99')}, p50 ${ratio(submit!, bare!, 'p50')}`,
    );
    console.log(
      `  this machine, this run (p50 / p99 ms): ${[submit!, bare!, direct!].map((s, i) => `${sides[i]!.name} ${s.p50.toFixed(1)} / ${s.p99.toFixed(1)}`).join('; ')}`,
    );
    console.log(
      `  CPU per request in the open loop (each whole process, its background work included): ${[...cpuMsPerRequest].map(([name, ms]) => `${name} ${ms.toFixed(2)} ms`).join(', ')}`,
    );
    console.log(`  one at a time (p50 / p99 ms): ${alone.map((s, i) => `${sides[i]!.name} ${s.p50.toFixed(1)} / ${s.p99.toFixed(1)}`).join('; ')}`);
    console.log(
      `delivery p99: ${delivery.summary.p99.toFixed(1)} ms from the append call, its commit included (target <= 50 ms); ${delivery.delivered} of ${delivery.expected} deliveries arrived`,
    );
    console.log(
      `API RSS: ${delivery.idleRss.toFixed(0)} MB before the streams, peak ${delivery.peakRss.toFixed(0)} MB with ${streams} open (target <= 500 MB)`,
    );
  } finally {
    await stop(api);
    await pool.end();
    await services.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
