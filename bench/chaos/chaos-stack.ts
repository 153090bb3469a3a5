import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { Pool } from 'pg';
import { createApiKey } from '../../core/auth/api-keys';
import { createPool } from '../../core/db/database';
import { buildWorkflowBundle } from '../../infra/build-workflow-bundle';
import { createOrchestratorClient } from '../../protos/clients';
import type { OrchestratorServiceClient } from '../../protos/generated/shannon/orchestrator/OrchestratorService';
import { ScriptedModelServer } from '../../test/model-server/scripted-model-server';
import { freePort } from '../../test/setup/free-port';
import { startSideEffectPeer, type SideEffectPeer } from '../../test/support/side-effect-peer';
import { chaosFolder, startOwnPostgres, startOwnTemporal, type CrashableService } from './own-services';
import { startWeftApi, startWeftWorker, type WeftProcess } from './weft-processes';

// What a chaos run runs on: its own Postgres and Temporal, a scripted model, a peer with side
// effects (a keyed and an at-most-once operation, registered as Weft's OpenAPI tools, answering each
// request after a while), Weft's API and two workers as processes, and a client of the API with an
// approver's key.

export interface ChaosStack {
  postgres: CrashableService;
  temporalServer: CrashableService;
  model: ScriptedModelServer;
  peer: SideEffectPeer;
  pool: Pool;
  temporal: Client;
  api: WeftProcess;
  workers: WeftProcess[];
  /** The API's gRPC address, and the key its clients use. */
  address: string;
  apiKey: string;
  client: OrchestratorServiceClient;
  stop(): Promise<void>;
}

export async function startChaosStack(workflowBundle?: string): Promise<ChaosStack> {
  const folder = chaosFolder();
  const model = new ScriptedModelServer();
  await model.start();
  const peer = await startSideEffectPeer({ answerAfterMs: 500 });
  const postgres = await startOwnPostgres(folder.path);
  const temporalServer = await startOwnTemporal(folder.path);
  const pool = createPool(postgres.address, { size: 4 });
  const connection = await Connection.connect({ address: temporalServer.address });
  const ports = { grpc: await freePort(), agent: await freePort(), llm: await freePort(), http: await freePort() };
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: postgres.address,
    TEMPORAL_ADDRESS: temporalServer.address,
    WEFT_TASK_QUEUE: 'chaos',
    WEFT_LLM_BASE_URL: model.baseURL,
    WEFT_LLM_MODEL: 'chaos-scripted-model',
    WEFT_WORKFLOW_BUNDLE: workflowBundle ?? (await buildWorkflowBundle(path.join(folder.path, 'workflow-bundle.js'))),
    WEFT_METRICS_PORT: '0',
    WEFT_API_METRICS_PORT: '0',
    WEFT_GRPC_PORT: String(ports.grpc),
    WEFT_AGENT_GRPC_PORT: String(ports.agent),
    WEFT_LLM_GRPC_PORT: String(ports.llm),
    WEFT_HTTP_PORT: String(ports.http),
    WEFT_SANDBOX_POOL_SIZE: '0',
    WEFT_OPENAPI_SOURCES: JSON.stringify([{ name: 'effects', spec_url: `${peer.base}/openapi.json` }]),
    OPENAPI_ALLOWED_DOMAINS: '127.0.0.1',
    // One tenant sends the whole load: its quotas are not what is tested here.
    WEFT_TENANT_MAX_RUNNING_TASKS: '100000',
    WEFT_TENANT_SUBMITS_PER_MINUTE: '100000',
    WEFT_RATE_LIMIT_PER_MINUTE: '1000000',
  };
  const apiKey = await createApiKey(pool, { tenantId: 'chaos', userId: 'chaos', roles: ['approver'] });
  const address = `127.0.0.1:${ports.grpc}`;
  const api = await startWeftApi(env, folder.path);
  const workers = [await startWeftWorker(env, folder.path, 'worker-1'), await startWeftWorker(env, folder.path, 'worker-2')];
  const client = createOrchestratorClient(address, { apiKey });
  return {
    postgres,
    temporalServer,
    model,
    peer,
    pool,
    temporal: new Client({ connection }),
    api,
    workers,
    address,
    apiKey,
    client,
    async stop() {
      client.close();
      await api.stop();
      await Promise.all(workers.map((worker) => worker.stop()));
      await connection.close();
      await pool.end();
      await temporalServer.stop();
      await postgres.stop();
      await model.stop();
      await peer.stop();
      if (!process.env.CHAOS_KEEP) folder.remove();
    },
  };
}
