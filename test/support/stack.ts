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

export interface RunningWorker {
  worker: Worker;
  stop(): Promise<void>;
}

/** A Weft worker on the shared test Temporal server, its model calls going to `modelBaseURL`. */
export async function startTestWorker(options: { taskQueue: string; store: RuntimeStore; modelBaseURL: string }): Promise<RunningWorker> {
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const worker = await createWeftWorker({
    connection,
    namespace: 'default',
    taskQueue: options.taskQueue,
    activities: createActivities({
      store: options.store,
      chatModel: createChatModel({ baseURL: options.modelBaseURL, apiKey: 'test', timeoutMs: 10_000 }),
      defaultModel: TEST_MODEL,
    }),
    shutdownGraceMs: 5_000,
    workflowBundle: { codePath: process.env.WEFT_TEST_WORKFLOW_BUNDLE! },
  });
  const running = worker.run();
  return {
    worker,
    async stop() {
      worker.shutdown();
      await running;
      await connection.close();
    },
  };
}

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
  const taskQueue = `test-${randomUUID()}`;
  const pool = createPool(process.env.DATABASE_URL!);
  const store = createRuntimeStore(pool);
  const model = new ScriptedModelServer();
  await model.start();
  const worker = await startTestWorker({ taskQueue, store, modelBaseURL: model.baseURL });

  const clientConnection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
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
      await worker.stop();
      await clientConnection.close();
      await model.stop();
      await pool.end();
    },
  };
}
