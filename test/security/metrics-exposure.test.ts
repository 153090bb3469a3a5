import { createToolRegistry } from '../../core/tools/registry';
import { toolMetadata } from '../../core/tools/tool';
import { createToolMetrics } from '../../core/tools/tool-metrics';
import { serveOps } from '../../core/telemetry/ops-server';

// The worker's metrics endpoint, read by someone who should not learn who the customers are: by
// default no label names a tenant, and with a token the endpoint answers only to it.

const secretTenant = 'acme-corp-confidential';

async function scrape(tenantLabels: boolean, token?: string, sent?: string) {
  const metrics = createToolMetrics({ tenantLabels });
  const limited = {
    ...toolMetadata({ name: 'limited', version: '1.0.0', description: 'limited', category: 'test', parameters: { type: 'object' }, rateLimitPerMinute: 1 }),
    execute: async () => 'ok',
  };
  const registry = createToolRegistry([limited], { observer: metrics });
  for (let i = 0; i < 2; i++) await registry.execute('limited', {}, { tenantId: secretTenant, userId: 'u', roles: [], sessionId: '', taskId: 't' });
  const server = await serveOps({ registry: metrics.registry, host: '127.0.0.1', port: 0, ...(token ? { token } : {}) });
  try {
    const response = await fetch(`http://127.0.0.1:${server.port}/metrics`, sent ? { headers: { authorization: sent } } : {});
    return { status: response.status, text: await response.text() };
  } finally {
    await server.close();
  }
}

it('names no tenant in any label unless tenant labels are enabled', async () => {
  const anonymous = await scrape(false);
  expect(anonymous.status).toBe(200);
  expect(anonymous.text).toContain('weft_rate_limit_exceeded_total{tool_name="limited"} 1');
  expect(anonymous.text).not.toContain(secretTenant);
  expect((await scrape(true)).text).toContain(`tenant_id="${secretTenant}"`);
});

it('with a token, answers only to it', async () => {
  const token = 'metrics-token-0123456789';
  expect((await scrape(false, token)).status).toBe(401);
  expect((await scrape(false, token, 'Bearer wrong-token-0123456789')).status).toBe(401);
  const allowed = await scrape(false, token, `Bearer ${token}`);
  expect(allowed.status).toBe(200);
  expect(allowed.text).toContain('weft_tool_executions_total');
});

it('answers the probes without the token, and says why it is not ready', async () => {
  let reason: string | undefined = 'worker starting';
  const server = await serveOps({
    registry: createToolMetrics({ tenantLabels: false }).registry,
    host: '127.0.0.1',
    port: 0,
    token: 'metrics-token-0123456789',
    notReady: async () => reason,
  });
  try {
    const probe = async (path: string) => {
      const response = await fetch(`http://127.0.0.1:${server.port}${path}`);
      return [response.status, await response.text()];
    };
    expect(await probe('/healthz')).toEqual([200, 'ok\n']);
    expect(await probe('/readyz')).toEqual([503, 'not ready: worker starting\n']);
    reason = undefined;
    expect(await probe('/readyz')).toEqual([200, 'ready\n']);
    expect((await probe('/metrics'))[0]).toBe(401);
  } finally {
    await server.close();
  }
});
