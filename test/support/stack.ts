import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import type { Pool } from 'pg';
import { createActivities } from '../../activities';
import { startEventFeed } from '../../core/events/event-feed';
import { startAuthenticator } from '../../api/tasks/auth';
import { ephemeralListen, startApiServer, type ApiDeps, type ApiServer } from '../../api/server';
import { startEngineEndings } from '../../api/reconciliation/engine-endings';
import { createApiKey, type Principal } from '../../core/auth/api-keys';
import { createPool } from '../../core/db/database';
import { loadCatalogs } from '../../core/catalogs';
import { loadConfig } from '../../core/config';
import { createModelGateway } from '../../core/llm/gateway';
import type { ModelCatalog } from '../../core/llm/model-catalog';
import type { TaskSettings } from '../../core/orchestration/task-settings';
import { createRuntimeStore, type RuntimeStore } from '../../core/store';
import { createWeftToolRegistry, type ToolRegistry } from '../../core/tools';
import type { TaskWorkflowInput } from '../../workflows/task-workflow-types';
import { createOrchestratorClient, createServiceClient, type ServiceClient, type ServiceName } from '../../protos/clients';
import type { OrchestratorServiceClient } from '../../protos/generated/shannon/orchestrator/OrchestratorService';
import { createWeftWorker } from '../../workers/create-worker';
import { ScriptedModelServer } from '../model-server/scripted-model-server';
import { TEST_MODEL, testCatalog } from './test-catalog';
import type { VerifiedTasks } from './verification';
import type { Tracing } from '../../core/telemetry/tracing';
import type { WorkerCapacity } from '../../core/capacity-settings';
import type { TaskObserver } from '../../core/telemetry/task-metrics';

export { TEST_MODEL, TEST_MODELS } from './test-catalog';

/** Which models a stack's worker and API reach: the test catalog on the scripted server unless a test builds its own. */
export type CatalogFor = (modelBaseURL: string) => ModelCatalog;
const testAliases = { 'venice-uncensored': TEST_MODEL };

/** Task settings as a fresh deployment has them (the config defaults), with a test's overrides. */
export function testTaskSettings(overrides: Partial<TaskSettings> = {}): TaskSettings {
  return { ...loadConfig({}).task, ...overrides };
}

/** A task workflow input for tests that start the workflow directly. */
export function testTaskInput(overrides: Partial<TaskWorkflowInput> & { taskId: string; query: string }): TaskWorkflowInput {
  return { tenantId: 't', userId: 'u', sessionId: '', autoDecompose: false, requireApproval: false, settings: testTaskSettings(), ...overrides };
}

/** A fresh folder for the file tools' workspaces and memory. */
export const testWorkspaceDir = () => mkdtempSync(path.join(tmpdir(), 'weft-workspace-'));

export function testToolRegistry(workspaceDir = testWorkspaceDir()): ToolRegistry {
  return createWeftToolRegistry({ ...loadConfig({}), workspaceDir });
}

export interface RunningWorker {
  worker: Worker;
  stop(): Promise<void>;
}

/** A Weft worker on the shared test Temporal server, its model calls going to `modelBaseURL`. */
export async function startTestWorker(options: {
  taskQueue: string;
  pool: Pool;
  store: RuntimeStore;
  modelBaseURL: string;
  catalog?: CatalogFor;
  tools?: ToolRegistry;
  tracing?: Tracing;
  capacity?: WorkerCapacity;
  observer?: TaskObserver;
}): Promise<RunningWorker> {
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const worker = await createWeftWorker({
    connection,
    namespace: 'default',
    taskQueue: options.taskQueue,
    activities: createActivities({
      pool: options.pool,
      store: options.store,
      gateway: createModelGateway((options.catalog ?? testCatalog)(options.modelBaseURL), { aliases: testAliases, waitsForRetryAfter: false }),
      cacheTtlSeconds: 3600,
      tools: options.tools ?? testToolRegistry(),
      ...(options.observer ? { observer: options.observer } : {}),
    }),
    shutdownGraceMs: 5_000,
    ...(options.capacity ? { capacity: options.capacity } : {}),
    workflowBundle: { codePath: process.env.WEFT_TEST_WORKFLOW_BUNDLE! },
    ...(options.tracing ? { tracing: options.tracing.plugin } : {}),
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
  /** Where the file tools of the stack's worker write. */
  workspaceDir: string;
  /** What the API runs on, to start more API servers on the same stack. */
  apiDeps: ApiDeps;
  /** An authenticated client: the key of a fresh tenant, with the approver and act_for_users roles. */
  orchestrator: OrchestratorServiceClient;
  principal: Principal;
  apiKey: string;
  /** A new API key, and a client for another caller. */
  newApiKey(principal: Principal): Promise<string>;
  clientFor(principal: Principal): Promise<OrchestratorServiceClient>;
  /** A client of any service on its port, with the stack's key or the one given. */
  client<S extends ServiceName>(service: S, apiKey?: string): ServiceClient<S>;
  taskQueue: string;
  /** Every task of the tenants this stack made keys for, and what verifying them needs. */
  everyTask(): Promise<VerifiedTasks>;
  stop(): Promise<void>;
}

/**
 * A whole Weft stack for one test file on the shared Temporal dev server and test database:
 * a worker on its own task queue, the gRPC API on a free port, and a scripted model server.
 */
export async function startTestStack(
  options: {
    maxQueryBytes?: number;
    settings?: Partial<TaskSettings>;
    catalog?: CatalogFor;
    /** With its own workspace folder: pass the same as workspaceDir for the file routes to see its files. */
    tools?: ToolRegistry;
    workspaceDir?: string;
    model?: ScriptedModelServer;
    tracing?: Tracing;
    workerCapacity?: WorkerCapacity;
    /** Sees the worker's tasks (metrics). */
    observer?: TaskObserver;
    /** The worker's own pool (the caller ends it), apart from the API's: to watch what the worker's activities send. */
    workerPool?: Pool;
  } = {},
): Promise<TestStack> {
  const taskQueue = `test-${randomUUID()}`;
  const pool = createPool(process.env.DATABASE_URL!);
  const store = createRuntimeStore(pool);
  const model = options.model ?? new ScriptedModelServer();
  await model.start();
  const workspaceDir = options.workspaceDir ?? testWorkspaceDir();
  const tools = options.tools ?? testToolRegistry(workspaceDir);
  const workerPool = options.workerPool ?? pool;
  const worker = await startTestWorker({
    taskQueue,
    pool: workerPool,
    store: workerPool === pool ? store : createRuntimeStore(workerPool),
    modelBaseURL: model.baseURL,
    tools,
    ...(options.catalog ? { catalog: options.catalog } : {}),
    ...(options.tracing ? { tracing: options.tracing } : {}),
    ...(options.workerCapacity ? { capacity: options.workerCapacity } : {}),
    ...(options.observer ? { observer: options.observer } : {}),
  });

  const clientConnection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const temporal = new Client({ connection: clientConnection, namespace: 'default', ...(options.tracing ? { plugins: [options.tracing.plugin] } : {}) });
  const events = await startEventFeed(process.env.DATABASE_URL!);
  const auth = await startAuthenticator({ pool, databaseUrl: process.env.DATABASE_URL!, enabled: true });
  const apiDeps: ApiDeps = {
    temporal,
    pool,
    taskQueue,
    maxQueryBytes: options.maxQueryBytes ?? 32 * 1024,
    routingWaitMs: loadConfig({}).limits.routingWaitMs,
    taskDefaults: testTaskSettings(options.settings),
    tools,
    ...loadCatalogs(
      loadConfig({}),
      tools.list().map((t) => t.name),
    ),
    auth,
    events,
    sessions: loadConfig({}).sessions,
    gateway: createModelGateway((options.catalog ?? testCatalog)(model.baseURL), { aliases: testAliases }),
    // Short, so a test can see a cached answer expire.
    cacheTtlSeconds: 1,
    sandboxMemoryMb: 512,
    workspaceDir,
    // The tests' peers listen on this machine.
    toolSourceRules: { allowlists: { mcp: ['127.0.0.1'], openapi: ['127.0.0.1'] }, secretPrefix: 'TOOL_SECRET_' },
  };
  const api = await startApiServer(apiDeps, ephemeralListen());
  // As in api/main.ts: tasks Temporal closes by itself (terminate, timeouts) are ended in the store.
  const engineEndings = startEngineEndings({ temporal, pool, store });
  const clients: Array<{ close(): void }> = [];
  const tenants = new Set<string>();
  const newApiKey = (who: Principal) => {
    tenants.add(who.tenantId);
    return createApiKey(pool, who);
  };
  const clientFor = async (who: Principal) => {
    const client = createOrchestratorClient(`127.0.0.1:${api.port}`, { apiKey: await newApiKey(who) });
    clients.push(client);
    return client;
  };
  // Like a front end serving many users of its tenant: it decides approvals and acts for its users.
  const principal: Principal = { tenantId: `tenant-${randomUUID()}`, userId: 'tester', roles: ['approver', 'act_for_users'] };
  const apiKey = await newApiKey(principal);
  const orchestrator = createOrchestratorClient(`127.0.0.1:${api.port}`, { apiKey });
  clients.push(orchestrator);
  const portOf = (service: ServiceName) => (service === 'agent' ? api.agentPort : service === 'llm' ? api.llmPort : api.port);
  const client = <S extends ServiceName>(service: S, key = apiKey): ServiceClient<S> => {
    const created = createServiceClient(service, `127.0.0.1:${portOf(service)}`, { apiKey: key });
    clients.push(created);
    return created;
  };

  return {
    pool,
    store,
    model,
    workspaceDir,
    temporal,
    api,
    apiDeps,
    orchestrator,
    principal,
    apiKey,
    newApiKey,
    clientFor,
    client,
    taskQueue,
    async everyTask() {
      const { rows } = await pool.query<{ task_id: string }>('SELECT task_id FROM tasks WHERE tenant_id = ANY($1)', [[...tenants]]);
      return { deps: { pool, store, temporal }, taskIds: rows.map((row) => row.task_id) };
    },
    async stop() {
      for (const client of clients) client.close();
      await api.shutdown();
      await engineEndings.stop();
      await auth.close();
      await events.close();
      await worker.stop();
      await clientConnection.close();
      await model.stop();
      await pool.end();
    },
  };
}
