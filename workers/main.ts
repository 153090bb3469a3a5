// The worker process: runs Weft's workflows and activities on the task queue until SIGINT/SIGTERM.
import { NativeConnection, type Worker } from '@temporalio/worker';
import { collectDefaultMetrics } from 'prom-client';
import { createActivities } from '../activities';
import { loadConfig } from '../core/config';
import { createPool } from '../core/db/database';
import { migrateDatabase } from '../core/db/migrate';
import { createModelGateway } from '../core/llm/gateway';
import { createRuntimeStore } from '../core/store';
import { createWeftToolRegistry, startToolSources } from '../core/tools';
import { createToolMetrics } from '../core/tools/tool-metrics';
import { configureLogger, log } from '../core/telemetry/logger';
import { serveOps } from '../core/telemetry/ops-server';
import { createModelMetrics } from '../core/telemetry/model-metrics';
import { createTaskMetrics } from '../core/telemetry/task-metrics';
import { createWeftWorker } from './create-worker';
import { promoteBuild, workerVersionOf, workflowBundleOf } from './worker-version';
import { installWorkerRuntime } from './runtime';
import { otlpExporter, startTracing } from '../core/telemetry/tracing';

async function main(): Promise<void> {
  const config = loadConfig();
  configureLogger('weft-worker', config.logLevel);
  const tracing = config.tracing && startTracing('weft-worker', otlpExporter(config.tracing.tracesEndpoint));
  const runtime = await installWorkerRuntime(config.logLevel);
  await migrateDatabase(config.databaseUrl);
  const pool = createPool(config.databaseUrl, config.pool);
  const connection = await NativeConnection.connect(config.temporal.connection);
  const metrics = createToolMetrics({ tenantLabels: config.metrics.tenantLabels, shannonNames: config.metrics.shannonNames });
  collectDefaultMetrics({ register: metrics.registry });
  const tools = createWeftToolRegistry(config, metrics, { warmSandbox: true });
  const toolSources = await startToolSources(tools, config, { database: { url: config.databaseUrl, pool }, metrics });
  // Set once the worker exists, and once its build is promoted as configured; the probe asks from the start.
  const started: { worker?: Worker; promoted?: boolean } = {};
  const opsServer = await serveOps({
    registry: metrics.registry,
    host: config.listen.host,
    port: config.metricsPort,
    ...(config.metrics.token ? { token: config.metrics.token } : {}),
    moreMetrics: runtime.sdkMetrics,
    // Polling, its build promoted (new tasks reach it), and the database answers.
    notReady: async () => {
      const state = started.worker?.getState();
      if (state !== 'RUNNING') return `worker ${state?.toLowerCase() ?? 'starting'}`;
      if (!started.promoted) return 'worker build not promoted yet';
      return pool.query('SELECT 1').then(() => undefined);
    },
  });
  const activities = createActivities({
    pool,
    store: createRuntimeStore(pool),
    gateway: createModelGateway(config.catalog, {
      aliases: config.modelAliases,
      pool,
      observer: createModelMetrics(metrics.registry),
      waitsForRetryAfter: false,
    }),
    cacheTtlSeconds: config.llm.cacheTtlSeconds,
    tools,
    observer: createTaskMetrics(metrics.registry),
  });
  const { bundle, codeBuildId } = await workflowBundleOf(config.workflowBundlePath);
  const version = config.versioning && workerVersionOf(config.versioning, codeBuildId);
  const worker = await createWeftWorker({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    activities,
    shutdownGraceMs: config.shutdownGraceMs,
    capacity: { ...config.worker, ...(version ? { version } : {}) },
    workflowBundle: bundle,
    ...(tracing ? { tracing: tracing.plugin } : {}),
  });
  started.worker = worker;
  // The SDK's runtime shuts the worker down on SIGINT/SIGTERM; run() resolves once it has drained.
  const running = worker.run();
  log().info(
    { taskQueue: config.temporal.taskQueue, temporal: config.temporal.address, metricsPort: opsServer.port, build: version ?? 'unversioned' },
    `worker polling task queue ${config.temporal.taskQueue}${version ? ` as build ${version.buildId}` : ''}; metrics on :${opsServer.port}/metrics`,
  );
  const stopPromoting = new AbortController();
  const promoting = (
    version ? promoteBuild(connection, config.temporal.namespace, version, config.versioning!.promote, stopPromoting.signal) : Promise.resolve()
  ).then(() => (started.promoted = true));
  await running;
  stopPromoting.abort();
  await promoting;
  await toolSources.close();
  await opsServer.close();
  await connection.close();
  await pool.end();
  await tracing?.shutdown();
  log().info('worker stopped');
}

main().catch((err: unknown) => {
  log().fatal({ err }, 'worker failed');
  process.exit(1);
});
