// Queue fairness benchmark: `npx tsx bench/queue-fairness-bench.ts` (BENCH_QUIET_TASKS, default 60;
// BENCH_FLOOD_RUNNING, default 50; BENCH_FLOOD_STEP_MS, default 20000; BENCH_ACTIVITY_SLOTS, the
// worker's default unless set). On Temporal's real server as `make cluster` runs it
// (WEFT_TEST_TEMPORAL=dev for the dev server), with a Weft worker process and the API in this
// process (no per-tenant quotas, so the door lets the flood through). A quiet tenant runs STANDARD
// tasks one at a time, its model answering at once, and each is timed from SubmitTask until its
// result: alone, and while another tenant keeps BENCH_FLOOD_RUNNING tasks running whose model steps
// take BENCH_FLOOD_STEP_MS each (long, so that the flood holds the worker's slots without taking
// its two cores). The two phases alternate in rounds. Target: the quiet tenant's p99 under the
// flood <= 1.5x its p99 alone. With BENCH_ACTIVITY_SLOTS below the flood's tasks, their steps wait
// in the task queue: the server dispatches each tenant's in turn (the tenant is the fairness key),
// and WEFT_TEMPORAL_FAIRNESS=off runs the same first in, first out.
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { createApiKey } from '../core/auth/api-keys';
import { createPool } from '../core/db/database';
import { workerEnv, workerNodeFlags } from '../infra/processes';
import { callUnary, createOrchestratorClient } from '../protos/clients';
import type { SubmitTaskRequest } from '../protos/generated/shannon/orchestrator/SubmitTaskRequest';
import type { SubmitTaskResponse__Output } from '../protos/generated/shannon/orchestrator/SubmitTaskResponse';
import { ScriptedModelServer } from '../test/model-server/scripted-model-server';
import '../test/setup/quiet-logs';
import { startTestServices } from '../test/setup/test-services';
import { startReadyProcess, stop } from '../test/support/processes';
import { startBenchApi } from './bench-api';
import { printTable, summarize, timed } from './stats';

process.env.WEFT_TEST_TEMPORAL ??= 'cluster';
const quietTasks = Number(process.env.BENCH_QUIET_TASKS ?? 60);
const floodRunning = Number(process.env.BENCH_FLOOD_RUNNING ?? 50);
const floodStepMs = Number(process.env.BENCH_FLOOD_STEP_MS ?? 20_000);
const activitySlots = process.env.BENCH_ACTIVITY_SLOTS;
const rounds = 3;

/** Temporal, Postgres, the scripted model, a worker process of `activitySlots` and the API; the two tenants' task runners. */
async function startQueueFairnessStack() {
  const services = await startTestServices();
  const pool = createPool(process.env.DATABASE_URL!, { size: 20 });
  const model = new ScriptedModelServer({ demo: true });
  await model.start();
  model.on('flood task', { content: 'slow answer', delayMs: floodStepMs });
  model.on('quiet task', { content: 'quick answer' });
  const taskQueue = `bench-queue-fairness-${randomUUID()}`;
  const worker = await startReadyProcess(
    'workers/main.ts',
    {
      WEFT_TASK_QUEUE: taskQueue,
      WEFT_METRICS_PORT: '0',
      WEFT_LLM_BASE_URL: model.baseURL,
      WEFT_LLM_MODEL: 'bench-model',
      WEFT_WORKSPACE_DIR: '.state/bench-workspaces',
      WEFT_WORKFLOW_BUNDLE: process.env.WEFT_TEST_WORKFLOW_BUNDLE!,
      ...(activitySlots ? { WEFT_WORKER_ACTIVITY_SLOTS: activitySlots } : {}),
      ...workerEnv,
    },
    'worker polling task queue',
    workerNodeFlags,
  );
  const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const temporal = new Client({ connection });
  const { api, stop: stopApi } = await startBenchApi(temporal, pool, taskQueue, model.baseURL, { submitsPerMinute: 0, maxRunningTasks: 0 });
  const clientOf = async (tenantId: string) =>
    createOrchestratorClient(`127.0.0.1:${api.port}`, { apiKey: await createApiKey(pool, { tenantId, userId: 'u', roles: [] }) });
  const clients = [await clientOf(`quiet-${randomUUID()}`), await clientOf(`flooder-${randomUUID()}`)];
  /** A STANDARD task of the tenant, submitted and followed to its result. */
  const runnerOf = (client: (typeof clients)[number], query: string) => async () => {
    const submitted = await callUnary<SubmitTaskRequest, SubmitTaskResponse__Output>(client.SubmitTask, client, { query: `${query} ${randomUUID()}` });
    await temporal.workflow.getHandle(submitted.workflow_id).result();
  };
  return {
    quietTask: runnerOf(clients[0]!, 'quiet task'),
    floodTask: runnerOf(clients[1]!, 'flood task'),
    async stop() {
      for (const client of clients) client.close();
      await stopApi();
      await connection.close();
      await stop(worker);
      await pool.end();
      await model.stop();
      await services.stop();
    },
  };
}

async function main(): Promise<void> {
  const stack = await startQueueFairnessStack();
  const phases = { alone: [] as number[], flooded: [] as number[] };
  const measure = async (into: number[]) => {
    for (let i = 0; i < quietTasks / rounds; i++) await timed(into, stack.quietTask);
  };
  let floodTasks = 0;
  /** The other tenant keeps `floodRunning` tasks running while the quiet tenant's are measured. */
  const measureFlooded = async (into: number[]) => {
    let on = true;
    const loops = Array.from({ length: floodRunning }, async () => {
      // Started over one step's time, as a tenant's tasks come: not all ending in the same instant.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * floodStepMs));
      while (on) {
        await stack.floodTask();
        floodTasks += 1;
      }
    });
    // The flood's steps fill the worker's slots and wait in the queue before the first quiet task.
    await new Promise((resolve) => setTimeout(resolve, floodStepMs));
    try {
      await measure(into);
    } finally {
      on = false;
      await Promise.all(loops);
    }
  };
  try {
    for (let i = 0; i < 5; i++) await stack.quietTask(); // warm up
    for (let round = 0; round < rounds; round++) {
      await measure(phases.alone);
      await measureFlooded(phases.flooded);
    }
    const alone = summarize('quiet tenant task, submit to result, alone', phases.alone, 0);
    const flooded = summarize(`quiet tenant task, another tenant keeping ${floodRunning} running`, phases.flooded, 0);
    printTable([alone, flooded].map((row) => ({ ...row, opsPerSecond: NaN })));
    const server =
      process.env.WEFT_TEST_TEMPORAL === 'cluster'
        ? `Temporal's real server, fairness ${process.env.WEFT_TEMPORAL_FAIRNESS === 'off' ? 'off' : 'on'}`
        : 'the dev server (no fairness)';
    console.log(
      `\n${server}; worker activity slots ${activitySlots ?? 'as by default'}; the other tenant finished ${floodTasks} tasks of ${floodStepMs} ms steps`,
    );
    console.log(
      `quiet tenant p99 ratio, under the flood / alone: ${(flooded.p99 / alone.p99).toFixed(2)} (target <= 1.5); p50 ratio ${(flooded.p50 / alone.p50).toFixed(2)}`,
    );
    console.log(`  this machine, this run: p50 ${alone.p50.toFixed(0)} ms alone, ${flooded.p50.toFixed(0)} ms under the flood`);
  } finally {
    await stack.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
