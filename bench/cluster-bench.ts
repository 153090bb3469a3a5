// Cluster benchmark: `npx tsx bench/cluster-bench.ts` (BENCH_SECONDS, default 30; BENCH_CONCURRENCY,
// default 16). Throughput of STANDARD tasks (one model call each, closed loop) in the same run:
// on the Temporal dev server with one worker, and on Temporal's real server as `make cluster` runs
// it (five processes, Postgres persistence) with one worker and with two. Prints the ratios. The
// machine has two cores, so this shows scaling behaviour and per-task overhead, not speed.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { Client as PgClient } from 'pg';
import { Client, Connection } from '@temporalio/client';
import { createApiKey } from '../core/auth/api-keys';
import { createPool } from '../core/db/database';
import { unaryCall, createOrchestratorClient } from '../protos/clients';
import { ScriptedModelServer } from '../test/model-server/scripted-model-server';
import '../test/setup/quiet-logs';
import { startTestServices } from '../test/setup/test-services';
import { startTestCluster } from '../test/setup/test-temporal';
import { workerEnv, workerNodeFlags } from '../infra/processes';
import { stateDir } from '../infra/temporal-dev-server';
import { startReadyProcess, stop } from '../test/support/processes';
import { startBenchApi } from './bench-api';
import { printTable, summarize, timed, type Summary } from './stats';

const seconds = Number(process.env.BENCH_SECONDS ?? 30);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
const adminUrl = process.env.WEFT_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function dropDatabase(name: string): Promise<void> {
  const admin = new PgClient({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).finally(() => admin.end());
}

/** STANDARD tasks in a closed loop for `seconds` on the Temporal at `address`, with `workers` Weft workers. */
async function throughput(name: string, address: string, workers: number, model: ScriptedModelServer): Promise<Summary> {
  const pool = createPool(process.env.DATABASE_URL!, { size: 20 });
  const taskQueue = `bench-cluster-${randomUUID()}`;
  const env = {
    TEMPORAL_ADDRESS: address,
    WEFT_TASK_QUEUE: taskQueue,
    WEFT_LLM_BASE_URL: model.baseURL,
    WEFT_LLM_MODEL: 'bench-model',
    WEFT_METRICS_PORT: '0',
    WEFT_WORKFLOW_BUNDLE: process.env.WEFT_TEST_WORKFLOW_BUNDLE!,
  };
  const processes = [];
  for (let i = 0; i < workers; i++)
    processes.push(await startReadyProcess('workers/main.ts', { ...env, ...workerEnv }, 'worker polling task queue', workerNodeFlags));
  const connection = await Connection.connect({ address });
  const temporal = new Client({ connection });
  const { api, stop: stopApi } = await startBenchApi(temporal, pool, taskQueue, model.baseURL);
  const orchestrator = createOrchestratorClient(`127.0.0.1:${api.port}`, {
    apiKey: await createApiKey(pool, { tenantId: `bench-${randomUUID()}`, userId: 'bench', roles: [] }),
  });
  const task = async () => {
    const submitted = await unaryCall(orchestrator, 'SubmitTask', { query: `cluster bench ${randomUUID()}` });
    return temporal.workflow.getHandle(submitted.workflow_id).result();
  };
  try {
    for (let i = 0; i < 5; i++) await task(); // warm up
    const latencies: number[] = [];
    const deadline = Date.now() + seconds * 1000;
    const begin = Date.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (Date.now() < deadline) await timed(latencies, task);
      }),
    );
    return summarize(name, latencies, (Date.now() - begin) / 1000);
  } finally {
    orchestrator.close();
    await stopApi();
    await connection.close();
    for (const proc of processes) await stop(proc);
    await pool.end();
  }
}

async function main(): Promise<void> {
  const services = await startTestServices();
  const model = new ScriptedModelServer({ demo: true });
  await model.start();
  const cluster = await startTestCluster(path.join(stateDir, 'bench'), adminUrl, dropDatabase);
  try {
    const dev = await throughput(`dev server, 1 worker, ${concurrency} in flight`, process.env.TEMPORAL_ADDRESS!, 1, model);
    const one = await throughput(`cluster, 1 worker, ${concurrency} in flight`, cluster.address, 1, model);
    const two = await throughput(`cluster, 2 workers, ${concurrency} in flight`, cluster.address, 2, model);
    console.log('');
    printTable([dev, one, two]);
    console.log(`\ncluster with 1 worker / dev server: ${(one.opsPerSecond / dev.opsPerSecond).toFixed(2)}`);
    console.log(`cluster with 2 workers / with 1 worker: ${(two.opsPerSecond / one.opsPerSecond).toFixed(2)}`);
  } finally {
    await cluster.stop();
    await model.stop();
    await services.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
