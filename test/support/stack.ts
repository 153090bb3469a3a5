import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import type { Pool } from 'pg';
import { createActivities } from '../../activities';
import { startApiServer, type ApiServer } from '../../api/server';
import { createPool } from '../../core/db/database';
import { createChatModel } from '../../core/llm/chat-model';
import { createRuntimeStore, type RuntimeStore } from '../../core/store';
import { createOrchestratorClient } from '../../protos/clients';
import type { OrchestratorServiceClient } from '../../protos/generated/shannon/orchestrator/OrchestratorService';
import { createWeftWorker } from '../../workers/create-worker';
import { ScriptedModelServer } from '../model-server/scripted-model-server';

export const TEST_MODEL = 'scripted-test-model';

export interface TestStack {
  pool: Pool;
  store: RuntimeStore;
  model: ScriptedModelServer;
  temporal: Client;
  api: ApiServer;
  orchestrator: OrchestratorServiceClient;
  taskQueue: string;
  stop(): Promise<void>;
}

/**
 * A whole Weft stack for one test file on the shared Temporal dev server and test database:
 * a worker on its own task queue, the gRPC API on a free port, and a scripted model server.
 */
export async function startTestStack(options: { maxQueryBytes?: number } = {}): Promise<TestStack> {
  const temporalAddress = process.env.TEMPORAL_ADDRESS!;
  const databaseUrl = process.env.DATABASE_URL!;
  const taskQueue = `test-${randomUUID()}`;
  const pool = createPool(databaseUrl);
  const store = createRuntimeStore(pool);
  const model = new ScriptedModelServer();
  await model.start();

  const workerConnection = await NativeConnection.connect({ address: temporalAddress });
  const worker: Worker = await createWeftWorker({
    connection: workerConnection,
    namespace: 'default',
    taskQueue,
    activities: createActivities({
      store,
      chatModel: createChatModel({ baseURL: model.baseURL, apiKey: 'test', timeoutMs: 10_000 }),
      defaultModel: TEST_MODEL,
    }),
    shutdownGraceMs: 5_000,
    workflowBundle: { codePath: process.env.WEFT_TEST_WORKFLOW_BUNDLE! },
  });
  const workerRun = worker.run();

  const clientConnection = await Connection.connect({ address: temporalAddress });
  const temporal = new Client({ connection: clientConnection, namespace: 'default' });
  const api = await startApiServer(
    { temporal, pool, taskQueue, maxQueryBytes: options.maxQueryBytes ?? 32 * 1024 },
    '127.0.0.1',
    0,
  );
  const orchestrator = createOrchestratorClient(`127.0.0.1:${api.port}`);

  return {
    pool,
    store,
    model,
    temporal,
    api,
    orchestrator,
    taskQueue,
    async stop() {
      orchestrator.close();
      await api.shutdown();
      worker.shutdown();
      await workerRun;
      await workerConnection.close();
      await clientConnection.close();
      await model.stop();
      await pool.end();
    },
  };
}
