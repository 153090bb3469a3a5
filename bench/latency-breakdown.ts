// Where a STANDARD task's latency goes: `npx tsx bench/latency-breakdown.ts`. Runs BENCH_RUNS
// (default 40) STANDARD tasks and as many bare workflows that make the same model call, one at a
// time and taking turns, on their own workers (as bench/orchestration-bench.ts does), then reads
// each workflow's history and splits its time by the server's event times:
// - before the worker: submit (gRPC SubmitTask, or the client's start) until the first workflow task starts;
// - workflow tasks: started until completed (a STANDARD task's start and end run in them, as local activities);
// - activities: started until completed (the model step, or the bare activities);
// - dispatch: every wait between a task being scheduled and a worker starting it;
// - to the caller: the workflow's completion until the caller holds the result.
// Medians per phase, summed per workflow, and each side's share of the difference.
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
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

const runs = Number(process.env.BENCH_RUNS ?? 40);
const phases = ['before the worker', 'workflow tasks', 'activities', 'dispatch', 'to the caller'] as const;
type Phase = (typeof phases)[number];

const EventType = { WftScheduled: 5, WftStarted: 6, WftCompleted: 7, ActScheduled: 10, ActStarted: 11, ActCompleted: 12 } as const;
const msOf = (time: temporal.api.history.v1.IHistoryEvent['eventTime']) => Number(time!.seconds) * 1000 + (time!.nanos ?? 0) / 1e6;

/** One workflow's time split into the phases, from its history and the caller's clock. */
function splitTime(events: temporal.api.history.v1.IHistoryEvent[], submittedAt: number, resultAt: number): Record<Phase, number> {
  const split: Record<Phase, number> = { 'before the worker': 0, 'workflow tasks': 0, activities: 0, dispatch: 0, 'to the caller': 0 };
  let scheduledAt = 0;
  let startedAt = 0;
  for (const event of events) {
    const at = msOf(event.eventTime);
    const type = Number(event.eventType);
    if (type === EventType.WftScheduled || type === EventType.ActScheduled) scheduledAt = at;
    if (type === EventType.WftStarted || type === EventType.ActStarted) {
      if (split['before the worker'] === 0) split['before the worker'] = at - submittedAt;
      else split.dispatch += at - scheduledAt;
      startedAt = at;
    }
    if (type === EventType.WftCompleted) split['workflow tasks'] += at - startedAt;
    if (type === EventType.ActCompleted) split.activities += at - startedAt;
  }
  split['to the caller'] = resultAt - msOf(events.at(-1)!.eventTime);
  return split;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

async function main(): Promise<void> {
  const services = await startTestServices();
  const pool = createPool(process.env.DATABASE_URL!, { size: 20 });
  const model = new ScriptedModelServer({ demo: true });
  await model.start();
  const weftQueue = `bench-weft-${randomUUID()}`;
  const bareQueue = `bench-bare-${randomUUID()}`;
  const weftWorker = await startReadyProcess(
    'workers/main.ts',
    { WEFT_TASK_QUEUE: weftQueue, WEFT_LLM_BASE_URL: model.baseURL, WEFT_LLM_MODEL: 'bench-model', WEFT_WORKSPACE_DIR: '.state/bench-workspaces', WEFT_WORKFLOW_BUNDLE: process.env.WEFT_TEST_WORKFLOW_BUNDLE!, ...workerEnv },
    'worker polling task queue',
    workerNodeFlags,
  );
  const bareWorker = await startReadyProcess('bench/bare-worker.ts', { WEFT_TASK_QUEUE: bareQueue, WEFT_LLM_BASE_URL: model.baseURL });
  const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const temporal = new Client({ connection });
  const { api, stop: stopApi } = await startBenchApi(temporal, pool, weftQueue, model.baseURL);
  const apiKey = await createApiKey(pool, { tenantId: 'bench', userId: 'bench', roles: [] });
  const orchestrator = createOrchestratorClient(`127.0.0.1:${api.port}`, { apiKey });

  const timedRun = async (start: () => Promise<string>) => {
    const submittedAt = Date.now();
    const workflowId = await start();
    const handle = temporal.workflow.getHandle(workflowId);
    const total = await handle.result().then(() => Date.now() - submittedAt);
    const { events } = await handle.fetchHistory();
    return { total, split: splitTime(events!, submittedAt, submittedAt + total) };
  };
  const sides = {
    'STANDARD task': async () => (await callUnary<SubmitTaskRequest, SubmitTaskResponse__Output>(orchestrator.SubmitTask, orchestrator, { query: `bench question ${randomUUID()}` })).workflow_id,
    'bare + model call': async () =>
      (await temporal.workflow.start('bareModelWorkflow', { taskQueue: bareQueue, workflowId: `bare-${randomUUID()}`, args: [`bench question ${randomUUID()}`] })).workflowId,
  };
  try {
    const measured = Object.fromEntries(Object.keys(sides).map((name) => [name, [] as Array<Awaited<ReturnType<typeof timedRun>>>]));
    for (let i = 0; i < runs + 5; i++) {
      for (const [name, start] of Object.entries(sides)) {
        const run = await timedRun(start);
        if (i >= 5) measured[name]!.push(run);
      }
    }
    const [weft, bare] = Object.values(measured) as [typeof measured[string], typeof measured[string]];
    const row = (label: string, of: (run: (typeof weft)[number]) => number) => {
      const [w, b] = [median(weft.map(of)), median(bare.map(of))];
      console.log(`${label.padEnd(20)} ${w.toFixed(1).padStart(8)} ${b.toFixed(1).padStart(8)} ${(w - b).toFixed(1).padStart(8)}`);
    };
    console.log(`\nmedians of ${runs} runs each, ms    STANDARD   bare+model   difference`);
    for (const phase of phases) row(phase, (run) => run.split[phase]);
    row('end to end', (run) => run.total);
    console.log(`latency ratio (p50 STANDARD / p50 bare + the model call): ${(median(weft.map((r) => r.total)) / median(bare.map((r) => r.total))).toFixed(2)}`);
  } finally {
    orchestrator.close();
    await stopApi();
    await connection.close();
    await stop(weftWorker);
    await stop(bareWorker);
    await model.stop();
    await pool.end();
    await services.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
