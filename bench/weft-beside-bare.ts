import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { createApiKey } from '../core/auth/api-keys';
import { createPool } from '../core/db/database';
import { callUnary, createOrchestratorClient } from '../protos/clients';
import type { SubmitTaskRequest } from '../protos/generated/shannon/orchestrator/SubmitTaskRequest';
import type { SubmitTaskResponse__Output } from '../protos/generated/shannon/orchestrator/SubmitTaskResponse';
import { ScriptedModelServer, type ModelPace } from '../test/model-server/scripted-model-server';
import '../test/setup/quiet-logs';
import { startTestServices } from '../test/setup/test-services';
import { startReadyProcess, stop } from '../test/support/processes';
import { startBenchApi } from './bench-api';
import { startBenchWorker } from './bench-worker';
import { workerEnv, workerNodeFlags } from '../infra/processes';

/**
 * What the benches that hold Weft against bare Temporal run on: their own Temporal dev server and
 * database, the scripted model, Weft's production worker (prebuilt workflow bundle, configured as
 * `make up` runs it, or with `workerNodeFlags`) and the bare baseline's worker (bench/bare-worker.ts),
 * each in its own process, and Weft's API in the bench's process (at a model's pace with
 * `modelPace`). stop() ends all of it.
 */
export async function startWeftBesideBare(options: { workerNodeFlags?: string[]; modelPace?: ModelPace } = {}) {
  const services = await startTestServices();
  const pool = createPool(process.env.DATABASE_URL!, { size: 20 });
  const model = new ScriptedModelServer({ demo: true, ...(options.modelPace ? { pace: options.modelPace } : {}) });
  await model.start();
  const weftQueue = `bench-weft-${randomUUID()}`;
  const bareQueue = `bench-bare-${randomUUID()}`;
  const weftWorker = await startBenchWorker(weftQueue, model.baseURL, {}, options.workerNodeFlags);
  // Like for like: the bare worker runs with the Weft worker's Node flags and environment.
  const bareWorker = await startReadyProcess(
    'bench/bare-worker.ts',
    { WEFT_TASK_QUEUE: bareQueue, WEFT_LLM_BASE_URL: model.baseURL, ...workerEnv },
    'worker process ready',
    options.workerNodeFlags ?? workerNodeFlags,
  );
  const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const temporal = new Client({ connection });
  const { api, stop: stopApi } = await startBenchApi(temporal, pool, weftQueue, model.baseURL);
  const apiKey = await createApiKey(pool, { tenantId: 'bench', userId: 'bench', roles: [] });
  const orchestrator = createOrchestratorClient(`127.0.0.1:${api.port}`, { apiKey });
  return {
    temporal,
    pool,
    api,
    model,
    weftWorker,
    bareWorker,
    bareQueue,
    /** Submits a STANDARD task through the API; its workflow's id. */
    submitStandardTask: async (query = `bench question ${randomUUID()}`) =>
      (await callUnary<SubmitTaskRequest, SubmitTaskResponse__Output>(orchestrator.SubmitTask, orchestrator, { query })).workflow_id,
    async stop() {
      orchestrator.close();
      await stopApi();
      await connection.close();
      await stop(weftWorker);
      await stop(bareWorker);
      await model.stop();
      await pool.end();
      await services.stop();
    },
  };
}
