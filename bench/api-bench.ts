// Front-door benchmark: `npx tsx bench/api-bench.ts`. Starts its own Temporal dev server and
// database (as `make test` does) and the API as its own process (`api/main.ts`, as `make up` runs it),
// then measures:
// - SubmitTask latency at a steady BENCH_RATE requests/s (default 100) for BENCH_SECONDS (default 20),
//   open loop: requests are sent on schedule whether or not earlier ones have answered (and first
//   BENCH_RATE of each one at a time, beside the same number of direct starts). No worker
//   polls the queue, so this is the front door alone (validation, auth, workflow start). Beside it,
//   in one-second slices taken in turns, its baseline: the same workflow starts (the same search
//   attributes) sent straight to Temporal by this process;
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
import { executionModeKey, sessionIdKey, taskStatusKey, tenantIdKey, userIdKey } from '../workflows/search-attributes';
import { printTable, summarize, type Summary } from './stats';

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

async function timedInto(latencies: number[], call: () => Promise<unknown>): Promise<void> {
  const start = performance.now();
  await call();
  latencies.push(performance.now() - start);
}

/** Starts of a task's workflow straight to Temporal, without the API: what the dev server itself takes. */
function directStarter(temporal: Client, tenantId: string) {
  return () =>
    temporal.workflow.start('taskWorkflow', {
      taskQueue: `bench-direct-${tenantId}`,
      workflowId: `bench-direct-${randomUUID()}`,
      args: [],
      // As SubmitTask starts it: the same search attributes, which the visibility store indexes.
      typedSearchAttributes: [
        { key: taskStatusKey, value: 'QUEUED' },
        { key: executionModeKey, value: 'ROUTING' },
        { key: userIdKey, value: 'bench' },
        { key: sessionIdKey, value: '' },
        { key: tenantIdKey, value: tenantId },
      ],
    });
}

/**
 * SubmitTask through the API and the same starts straight to Temporal, each at a steady rate (open
 * loop), in one-second slices taken in turns: a stall of the dev server (visibility scans, its own
 * housekeeping) or a slow minute of the machine weighs on both alike.
 */
async function benchSubmitsBesideDirectStarts(address: string, apiKey: string, tenantId: string): Promise<[Summary, Summary, Summary, Summary]> {
  const orchestrator = createServiceClient('orchestrator', address, { apiKey });
  const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const directStart = directStarter(new Client({ connection }), tenantId);
  const submit = (i: number) => unaryCall(orchestrator, 'SubmitTask', { query: `bench submit ${i}` });
  for (let i = 0; i < 20; i++) await Promise.all([submit(i), directStart()]);
  const sides = [
    { latencies: [] as number[], alone: [] as number[], elapsed: 0, fire: submit },
    { latencies: [] as number[], alone: [] as number[], elapsed: 0, fire: directStart },
  ];
  // Which side goes first changes at random: a stall that comes every few seconds lands on either.
  const inTurn = () => (Math.random() < 0.5 ? sides : [...sides].reverse());
  // One at a time first: what the API adds to a start when nothing queues for the CPU.
  const aloneBegin = performance.now();
  for (let i = 0; i < rate; i++) for (const side of inTurn()) await timedInto(side.alone, () => side.fire(i));
  const aloneSeconds = (performance.now() - aloneBegin) / 1000;
  for (let slice = 0; slice < seconds; slice++) {
    for (const side of inTurn()) side.elapsed += await openLoop(rate, rate, (i) => timedInto(side.latencies, () => side.fire(i)));
  }
  orchestrator.close();
  await connection.close();
  return [
    summarize(`SubmitTask at ${rate}/s (open loop)`, sides[0]!.latencies, sides[0]!.elapsed),
    summarize(`baseline: workflow.start direct at ${rate}/s`, sides[1]!.latencies, sides[1]!.elapsed),
    summarize('SubmitTask one at a time', sides[0]!.alone, aloneSeconds),
    summarize('baseline: workflow.start one at a time', sides[1]!.alone, aloneSeconds),
  ];
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
    const [submit, baseline, submitAlone, baselineAlone] = await benchSubmitsBesideDirectStarts(address, apiKey, tenantId);
    const delivery = await benchStreams(pool, api, address, apiKey, tenantId);
    console.log('');
    printTable([submit, baseline, submitAlone, baselineAlone, delivery.summary]);
    console.log(
      `\nSubmitTask p99 ratio (through the API / straight to Temporal): ${(submit.p99 / baseline.p99).toFixed(2)} (target <= 1.5); p50 ratio ${(submit.p50 / baseline.p50).toFixed(2)}`,
    );
    console.log(
      `  this machine, this run: SubmitTask p50 ${submit.p50.toFixed(1)} ms, p99 ${submit.p99.toFixed(1)} ms; workflow.start p50 ${baseline.p50.toFixed(1)} ms, p99 ${baseline.p99.toFixed(1)} ms`,
    );
    console.log(
      `  one at a time: SubmitTask p50 ${submitAlone.p50.toFixed(1)} ms, p99 ${submitAlone.p99.toFixed(1)} ms; workflow.start p50 ${baselineAlone.p50.toFixed(1)} ms, p99 ${baselineAlone.p99.toFixed(1)} ms (p99 ratio ${(submitAlone.p99 / baselineAlone.p99).toFixed(2)})`,
    );
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
