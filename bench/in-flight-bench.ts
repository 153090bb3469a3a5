// Many tasks in flight (issue 19): `npx tsx bench/in-flight-bench.ts`. Starts its own Temporal dev
// server and database, the scripted model, and the API and a worker each in its own process as
// `make up` runs them. Submits BENCH_TASKS (default 1,000) STANDARD tasks that ask for approval, so
// that all of them are in flight at once, waiting in the worker's workflow cache; then approves
// them all and waits for every one to complete. Prints the worker's and the API's RSS (idle, and
// peak while the tasks are in flight and finishing) and the store's bytes per finished task.
// BENCH_WORKER_NODE_FLAGS (space-separated) runs the worker with other Node flags than `make up`'s.
import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { createApiKey } from '../core/auth/api-keys';
import { createPool } from '../core/db/database';
import { callUnary, createOrchestratorClient } from '../protos/clients';
import type { OrchestratorServiceClient } from '../protos/generated/shannon/orchestrator/OrchestratorService';
import type { SubmitTaskRequest } from '../protos/generated/shannon/orchestrator/SubmitTaskRequest';
import type { SubmitTaskResponse__Output } from '../protos/generated/shannon/orchestrator/SubmitTaskResponse';
import { ScriptedModelServer } from '../test/model-server/scripted-model-server';
import '../test/setup/quiet-logs';
import { freePort } from '../test/setup/free-port';
import { startTestServices } from '../test/setup/test-services';
import { approveTask, until } from '../test/support/orchestration';
import { apiNodeFlags, workerEnv, workerNodeFlags } from '../infra/processes';
import { rssMb, startReadyProcess, stop } from '../test/support/processes';

const tasks = Number(process.env.BENCH_TASKS ?? 1_000);
const clients = 16;

/** Runs `work(i)` for i in 0..count-1, `clients` at a time. */
async function inParallel(count: number, work: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < count) await work(next++);
    }),
  );
}

const countWhere = async (pool: Pool, sql: string, tenantId: string) => Number((await pool.query<{ n: string }>(sql, [tenantId])).rows[0]!.n);
const databaseBytes = async (pool: Pool) =>
  Number((await pool.query<{ bytes: string }>('SELECT pg_database_size(current_database()) AS bytes')).rows[0]!.bytes);

/** The peak RSS of some processes, sampled every 100 ms until stopped. */
function peakRss(pids: Record<string, number>) {
  const peaks = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, rssMb(pid)]));
  const sampler = setInterval(() => {
    for (const [name, pid] of Object.entries(pids)) peaks[name] = Math.max(peaks[name]!, rssMb(pid));
  }, 100);
  return { peaks, stop: () => clearInterval(sampler) };
}

async function submitAll(orchestrator: OrchestratorServiceClient): Promise<string[]> {
  const workflowIds: string[] = [];
  await inParallel(tasks, async (i) => {
    const submitted = await callUnary<SubmitTaskRequest, SubmitTaskResponse__Output>(orchestrator.SubmitTask, orchestrator, {
      query: `in flight ${i}`,
      require_approval: true,
    });
    workflowIds.push(submitted.workflow_id);
  });
  return workflowIds;
}

async function main(): Promise<void> {
  const services = await startTestServices();
  const pool = createPool(process.env.DATABASE_URL!, { size: 10 });
  const model = new ScriptedModelServer({ demo: true });
  await model.start();
  const taskQueue = `bench-in-flight-${randomUUID()}`;
  const port = await freePort();
  const shared = { WEFT_TASK_QUEUE: taskQueue, WEFT_LLM_BASE_URL: model.baseURL, WEFT_LLM_MODEL: 'bench-model' };
  const worker = await startReadyProcess(
    'workers/main.ts',
    { ...shared, WEFT_WORKSPACE_DIR: '.state/bench-workspaces', WEFT_WORKFLOW_BUNDLE: process.env.WEFT_TEST_WORKFLOW_BUNDLE!, ...workerEnv },
    'worker polling task queue',
    process.env.BENCH_WORKER_NODE_FLAGS?.split(' ') ?? workerNodeFlags,
  );
  const apiPorts = {
    WEFT_GRPC_PORT: String(port),
    WEFT_AGENT_GRPC_PORT: String(await freePort()),
    WEFT_LLM_GRPC_PORT: String(await freePort()),
    WEFT_HTTP_PORT: String(await freePort()),
  };
  // One tenant submits all of them: its quotas would refuse the load the bench is about.
  const noQuotas = { WEFT_RATE_LIMIT_PER_MINUTE: '0', WEFT_TENANT_SUBMITS_PER_MINUTE: '0', WEFT_TENANT_MAX_RUNNING_TASKS: '0' };
  const api = await startReadyProcess(
    'api/main.ts',
    { ...shared, ...apiPorts, ...noQuotas, WEFT_GRPC_HOST: '127.0.0.1', WEFT_API_METRICS_PORT: '0' },
    'api serving gRPC',
    apiNodeFlags,
  );
  const tenantId = `bench-${randomUUID()}`;
  const orchestrator = createOrchestratorClient(`127.0.0.1:${port}`, { apiKey: await createApiKey(pool, { tenantId, userId: 'bench', roles: ['approver'] }) });
  try {
    const idle = { worker: rssMb(worker.pid!), api: rssMb(api.pid!) };
    const bytesBefore = await databaseBytes(pool);
    const waiting = peakRss({ worker: worker.pid!, api: api.pid! });
    const started = Date.now();
    const workflowIds = await submitAll(orchestrator);
    await until(
      async () => (await countWhere(pool, "SELECT count(*) AS n FROM approvals WHERE tenant_id = $1 AND status = 'pending'", tenantId)) === tasks || undefined,
      10 * 60_000,
    );
    const inFlightSeconds = (Date.now() - started) / 1000;
    waiting.stop();

    const finishing = peakRss({ worker: worker.pid!, api: api.pid! });
    const pending = await pool.query<{ approval_id: string; workflow_id: string }>(
      "SELECT approval_id, workflow_id FROM approvals WHERE tenant_id = $1 AND status = 'pending'",
      [tenantId],
    );
    await inParallel(pending.rows.length, (i) =>
      approveTask(orchestrator, { approval_id: pending.rows[i]!.approval_id, workflow_id: pending.rows[i]!.workflow_id, approved: true }),
    );
    await until(
      async () => (await countWhere(pool, "SELECT count(*) AS n FROM tasks WHERE tenant_id = $1 AND status = 'COMPLETED'", tenantId)) === tasks || undefined,
      10 * 60_000,
    );
    finishing.stop();
    const storeBytes = (await databaseBytes(pool)) - bytesBefore;

    console.log(`${workflowIds.length} tasks submitted and waiting for approval after ${inFlightSeconds.toFixed(1)} s; all completed after approval`);
    console.log(
      `worker RSS: ${idle.worker.toFixed(0)} MB idle, peak ${waiting.peaks.worker!.toFixed(0)} MB with ${tasks} tasks in flight, ${finishing.peaks.worker!.toFixed(0)} MB while they finish (target <= 400 MB)`,
    );
    console.log(
      `API RSS: ${idle.api.toFixed(0)} MB idle, peak ${waiting.peaks.api!.toFixed(0)} MB while submitting, ${finishing.peaks.api!.toFixed(0)} MB while approving`,
    );
    console.log(`store: ${(storeBytes / tasks / 1024).toFixed(1)} KiB per finished task (database size before and after)`);
  } finally {
    orchestrator.close();
    await stop(api);
    await stop(worker);
    await model.stop();
    await pool.end();
    await services.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
