import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { outboundFor } from '../../core/tools';
import { createToolRegistry } from '../../core/tools/registry';
import { ToolError, toolMetadata } from '../../core/tools/tool';
import { createToolMetrics } from '../../core/tools/tool-metrics';
import { loadConfig } from '../../core/config';
import { serveOps } from '../../core/telemetry/ops-server';

let peer: Server;
beforeAll(async () => {
  peer = createServer((_req, res) => res.writeHead(502).end());
  await new Promise<void>((resolve) => peer.listen(0, '127.0.0.1', resolve));
});
afterAll(() => new Promise((resolve) => peer.close(resolve)));

it('exports tool executions, durations, errors by type, cost, rate-limit rejections and breaker state for Prometheus', async () => {
  const metrics = createToolMetrics({ tenantLabels: true });
  const paid = {
    ...toolMetadata({
      name: 'paid',
      version: '1.0.0',
      description: 'costs money',
      category: 'test',
      parameters: { type: 'object' },
      costPerUse: 0.5,
      rateLimitPerMinute: 2,
    }),
    execute: async () => 'ok',
  };
  const failing = {
    ...toolMetadata({ name: 'failing', version: '1.0.0', description: 'fails', category: 'test', parameters: { type: 'object' } }),
    execute: async () => {
      throw new ToolError('network', 'down');
    },
  };
  const registry = createToolRegistry([paid, failing], { observer: metrics });
  const context = { tenantId: 't', userId: 'u', roles: [], sessionId: '', taskId: 'x' };
  for (let i = 0; i < 3; i += 1) await registry.execute('paid', {}, context);
  await registry.execute('failing', {}, context);

  const outbound = outboundFor('TEST_ALLOWED_DOMAINS', ['127.0.0.1'], { ...loadConfig({}).outbound, breakerFailures: 2, maxAttempts: 1 }, metrics);
  const origin = `http://127.0.0.1:${(peer.address() as AddressInfo).port}`;
  for (let i = 0; i < 2; i += 1) await outbound.fetch(`${origin}/`);

  const server = await serveOps({ registry: metrics.registry, host: '127.0.0.1', port: 0 });
  try {
    const text = await (await fetch(`http://127.0.0.1:${server.port}/metrics`)).text();
    expect(text).toContain('weft_tool_executions_total{tool_name="paid",status="success"} 2');
    expect(text).toContain('weft_tool_executions_total{tool_name="failing",status="error"} 1');
    expect(text).toContain('weft_tool_errors_total{tool_name="failing",error_type="network"} 1');
    expect(text).toContain('weft_tool_cost_usd_total{tool_name="paid"} 1');
    expect(text).toContain('weft_rate_limit_exceeded_total{tool_name="paid"} 1');
    // Both tokens taken; what has trickled back since is less than one.
    const left = Number(/weft_rate_limit_tokens_available\{tool_name="paid",tenant_id="t"\} ([\d.e-]+)/.exec(text)?.[1]);
    expect(left).toBeGreaterThanOrEqual(0);
    expect(left).toBeLessThan(1);
    expect(text).toContain('weft_tool_execution_duration_seconds_count{tool_name="paid"} 2');
    expect(text).toContain(`weft_circuit_breaker_failures_total{base_url="${origin}"} 2`);
    expect(text).toContain(`weft_circuit_breaker_state{base_url="${origin}"} 1`);
  } finally {
    await server.close();
  }
});

it("also exports the seed's Shannon names with WEFT_METRICS_COMPAT=shannon, so Shannon dashboards find them", async () => {
  expect(loadConfig({ WEFT_METRICS_COMPAT: 'shannon' }).metrics.shannonNames).toBe(true);
  expect(loadConfig({}).metrics.shannonNames).toBe(false);
  const text = async (shannonNames: boolean) => {
    const metrics = createToolMetrics({ tenantLabels: false, shannonNames });
    const failing = {
      ...toolMetadata({ name: 'failing', version: '1.0.0', description: 'fails', category: 'test', parameters: { type: 'object' } }),
      execute: async () => {
        throw new ToolError('network', 'down');
      },
    };
    await createToolRegistry([failing], { observer: metrics }).execute('failing', {}, { tenantId: 't', userId: 'u', roles: [], sessionId: '', taskId: 'x' });
    const outbound = outboundFor('TEST_ALLOWED_DOMAINS', ['127.0.0.1'], { ...loadConfig({}).outbound, breakerFailures: 1, maxAttempts: 1 }, metrics);
    await outbound.fetch(`http://127.0.0.1:${(peer.address() as AddressInfo).port}/`);
    return metrics.registry.metrics();
  };
  const compat = await text(true);
  for (const line of [
    'shannon_tool_executions_total{tool_name="failing",status="error"} 1',
    'shannon_tool_errors_total{tool_name="failing",error_type="network"} 1',
    'shannon_tool_execution_duration_seconds_count{tool_name="failing"} 1',
    'weft_tool_executions_total{tool_name="failing",status="error"} 1',
  ])
    expect(compat).toContain(line);
  expect(compat).toMatch(/shannon_circuit_breaker_failures_total\{base_url="[^"]+"\} 1/);
  expect(compat).toMatch(/shannon_circuit_breaker_state\{base_url="[^"]+"\} 1/);
  expect(compat).toContain('# TYPE shannon_tool_cost_usd counter');
  expect(await text(false)).not.toContain('shannon_');
});
