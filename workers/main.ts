// The worker process: runs Weft's workflows and activities on the task queue until SIGINT/SIGTERM.
import { NativeConnection } from '@temporalio/worker';
import { createActivities } from '../activities';
import { loadConfig } from '../core/config';
import { createPool } from '../core/db/database';
import { migrateDatabase } from '../core/db/migrate';
import { createModelGateway } from '../core/llm/gateway';
import { createRuntimeStore } from '../core/store';
import { createWeftToolRegistry, startToolSources } from '../core/tools';
import { createToolMetrics } from '../core/tools/tool-metrics';
import { serveMetrics } from './metrics-server';
import { createWeftWorker } from './create-worker';

async function main(): Promise<void> {
  const config = loadConfig();
  await migrateDatabase(config.databaseUrl);
  const pool = createPool(config.databaseUrl);
  const connection = await NativeConnection.connect(config.temporal.connection);
  const metrics = createToolMetrics({ tenantLabels: config.metrics.tenantLabels });
  const tools = createWeftToolRegistry(config, metrics);
  const toolSources = await startToolSources(tools, config, { database: { url: config.databaseUrl, pool }, metrics });
  const metricsServer = await serveMetrics(metrics.registry, config.listen.host, config.metricsPort, config.metrics.token);
  const activities = createActivities({
    pool,
    store: createRuntimeStore(pool),
    gateway: createModelGateway(config.catalog, { aliases: config.modelAliases, pool }),
    cacheTtlSeconds: config.llm.cacheTtlSeconds,
    tools,
  });
  const worker = await createWeftWorker({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    activities,
    shutdownGraceMs: config.shutdownGraceMs,
    ...(config.workflowBundlePath ? { workflowBundle: { codePath: config.workflowBundlePath } } : {}),
  });
  console.log(`worker polling task queue ${config.temporal.taskQueue} on ${config.temporal.address}; metrics on :${metricsServer.port}/metrics`);
  // The SDK's runtime shuts the worker down on SIGINT/SIGTERM; run() resolves once it has drained.
  await worker.run();
  await toolSources.close();
  await metricsServer.close();
  await connection.close();
  await pool.end();
  console.log('worker stopped');
}

main().catch((err: unknown) => {
  console.error('worker failed:', err);
  process.exit(1);
});
