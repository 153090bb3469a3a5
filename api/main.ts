// The API process: the gRPC front door. It validates, starts and reads; it never runs agent logic.
import { Client, Connection } from '@temporalio/client';
import { loadConfig } from '../core/config';
import { createPool } from '../core/db/database';
import { migrateDatabase } from '../core/db/migrate';
import { startEventFeed } from '../core/events/event-feed';
import { createModelGateway } from '../core/llm/gateway';
import { configuredToolSourceKeys, createWeftToolRegistry, startToolSources } from '../core/tools';
import { startAuthenticator } from './tasks/auth';
import { startApiServer } from './server';
import { startEngineEndings } from './reconciliation/engine-endings';
import { createRuntimeStore } from '../core/store';
import { loadCatalogs } from '../core/catalogs';
import { configureLogger, log } from '../core/telemetry/logger';
import { serveOps } from '../core/telemetry/ops-server';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { watchApiState } from './api-metrics';
import { createRequestMetrics } from './grpc/request-telemetry';
import { otlpExporter, startTracing } from '../core/telemetry/tracing';

async function main(): Promise<void> {
  const config = loadConfig();
  configureLogger('weft-api', config.logLevel);
  const tracing = config.tracing && startTracing('weft-api', otlpExporter(config.tracing.tracesEndpoint));
  await migrateDatabase(config.databaseUrl);
  const pool = createPool(config.databaseUrl, config.pool);
  if (!config.authEnabled) log().warn('WEFT_AUTH=off: the API accepts every caller as tenant "default" with every role');
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const events = await startEventFeed(config.databaseUrl);
  const tools = createWeftToolRegistry(config);
  // Discovery lists MCP and OpenAPI tools too; the API never calls them.
  const toolSources = await startToolSources(tools, config, { database: { url: config.databaseUrl, pool } });
  const connection = await Connection.connect(config.temporal.connection);
  const temporal = new Client({ connection, namespace: config.temporal.namespace, ...(tracing ? { plugins: [tracing.plugin] } : {}) });
  const auth = await startAuthenticator({ pool, databaseUrl: config.databaseUrl, enabled: config.authEnabled, perMinute: config.rateLimitPerMinute });
  const server = await startApiServer(
    {
      temporal,
      pool,
      taskQueue: config.temporal.taskQueue,
      maxQueryBytes: config.limits.maxQueryBytes,
      routingWaitMs: config.limits.routingWaitMs,
      taskDefaults: config.task,
      tools,
      ...loadCatalogs(
        config,
        tools.list().map((t) => t.name),
      ),
      auth,
      tenantQuotas: config.tenantQuotas,
      events,
      sessions: config.sessions,
      gateway: createModelGateway(config.catalog, { aliases: config.modelAliases, pool }),
      cacheTtlSeconds: config.llm.cacheTtlSeconds,
      ...{ sandboxMemoryMb: config.sandbox.memoryMb, workspaceDir: config.workspaceDir },
      configuredToolSources: configuredToolSourceKeys(config),
      toolSourceRules: { allowlists: { mcp: config.outbound.mcpAllowedDomains, openapi: config.outbound.openapiAllowedDomains }, ...config.runtimeSources },
      requestMetrics: createRequestMetrics(registry),
      metrics: { registry, ...(config.metrics.token ? { token: config.metrics.token } : {}) },
    },
    config.listen,
  );
  watchApiState(registry, { pool, openStreams: server.openStreams });
  let stopping = false;
  const opsServer = await serveOps({
    registry,
    host: config.listen.host,
    port: config.apiMetricsPort,
    ...(config.metrics.token ? { token: config.metrics.token } : {}),
    // Not draining, and both the database and Temporal answer.
    notReady: async () => {
      if (stopping) return 'draining';
      await Promise.all([pool.query('SELECT 1'), connection.workflowService.getSystemInfo({})]);
      return undefined;
    },
  });
  const engineEndings = startEngineEndings({ temporal, pool, store: createRuntimeStore(pool) });
  const { host } = config.listen;
  log().info(
    { ports: { front: server.port, agent: server.agentPort, llm: server.llmPort, http: server.httpPort, metrics: opsServer.port } },
    `api serving gRPC on ${host}:${server.port} (orchestrator, streaming, session, ai), ${host}:${server.agentPort} (agent), ` +
      `${host}:${server.llmPort} (llm); REST and SSE on http://${host}:${server.httpPort}/api/v1; metrics on :${opsServer.port}/metrics`,
  );

  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log().info(`api received ${signal}, draining`);
    await server.shutdown();
    await opsServer.close();
    await engineEndings.stop();
    await auth.close();
    await toolSources.close();
    await events.close();
    await connection.close();
    await pool.end();
    await tracing?.shutdown();
    log().info('api stopped');
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((err: unknown) => {
  log().fatal({ err }, 'api failed');
  process.exit(1);
});
