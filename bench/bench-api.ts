import type { Client } from '@temporalio/client';
import type { Pool } from 'pg';
import { startAuthenticator } from '../api/tasks/auth';
import type { TenantQuotas } from '../api/tasks/tenant-admission';
import { ephemeralListen, startApiServer } from '../api/server';
import { loadConfig } from '../core/config';
import { loadCatalogs } from '../core/catalogs';
import { startEventFeed } from '../core/events/event-feed';
import { createModelGateway } from '../core/llm/gateway';
import { testTaskSettings, testToolRegistry, testWorkspaceDir } from '../test/support/stack';
import { testCatalog } from '../test/support/test-catalog';

/** The API in the bench's process, as `make up` configures it, on the bench's queue and model; stop() ends it. */
export async function startBenchApi(temporal: Client, pool: Pool, taskQueue: string, modelBaseURL: string, tenantQuotas?: TenantQuotas) {
  const events = await startEventFeed(process.env.DATABASE_URL!);
  const workspaceDir = testWorkspaceDir();
  const tools = testToolRegistry(workspaceDir);
  const auth = await startAuthenticator({ pool, databaseUrl: process.env.DATABASE_URL!, enabled: true });
  const api = await startApiServer(
    {
      temporal,
      pool,
      taskQueue,
      maxQueryBytes: 32 * 1024,
      routingWaitMs: loadConfig({}).limits.routingWaitMs,
      taskDefaults: testTaskSettings(),
      tools,
      ...loadCatalogs(
        loadConfig({}),
        tools.list().map((t) => t.name),
      ),
      auth,
      ...(tenantQuotas ? { tenantQuotas } : {}),
      events,
      sessions: { ttlSeconds: 3600, maxHistory: 100 },
      gateway: createModelGateway(testCatalog(modelBaseURL)),
      cacheTtlSeconds: 3600,
      sandboxMemoryMb: 512,
      workspaceDir,
    },
    ephemeralListen(),
  );
  return {
    api,
    async stop() {
      await api.shutdown();
      await auth.close();
      await events.close();
    },
  };
}
