import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import type { TenantQuotas } from '../api/tasks/tenant-admission';
import { createApiKey } from '../core/auth/api-keys';
import { createPool } from '../core/db/database';
import { createOrchestratorClient } from '../protos/clients';
import { ScriptedModelServer } from '../test/model-server/scripted-model-server';
import '../test/setup/quiet-logs';
import { startTestServices } from '../test/setup/test-services';
import { stop } from '../test/support/processes';
import { startBenchApi } from './bench-api';
import { startBenchWorker } from './bench-worker';

/**
 * What the benches that set tenants beside each other run on: their own Temporal and database, the
 * scripted model, a Weft worker process (with `workerEnv`) and the API in the bench's process with
 * `quotas`; `clientOf` gives a client with a new key of a tenant. stop() ends all of it.
 */
export async function startTenantsBenchStack(options: { queuePrefix: string; quotas: TenantQuotas; workerEnv?: NodeJS.ProcessEnv }) {
  const services = await startTestServices();
  const pool = createPool(process.env.DATABASE_URL!, { size: 20 });
  const model = new ScriptedModelServer({ demo: true });
  await model.start();
  const taskQueue = `${options.queuePrefix}-${randomUUID()}`;
  const worker = await startBenchWorker(taskQueue, model.baseURL, options.workerEnv);
  const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const temporal = new Client({ connection });
  const { api, stop: stopApi } = await startBenchApi(temporal, pool, taskQueue, model.baseURL, options.quotas);
  return {
    temporal,
    pool,
    taskQueue,
    model,
    clientOf: async (tenantId: string) =>
      createOrchestratorClient(`127.0.0.1:${api.port}`, { apiKey: await createApiKey(pool, { tenantId, userId: 'u', roles: [] }) }),
    async stop() {
      await stopApi();
      await connection.close();
      await stop(worker);
      await pool.end();
      await model.stop();
      await services.stop();
    },
  };
}
