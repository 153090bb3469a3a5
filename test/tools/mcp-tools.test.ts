import { createDestinationPolicy } from '../../core/tools/outbound/destination-policy';
import { createOutboundHttp } from '../../core/tools/outbound/outbound-http';
import { connectMcpServer, type McpServerTools } from '../../core/tools/mcp/mcp-server';
import { createToolRegistry } from '../../core/tools/registry';
import { ToolError } from '../../core/tools/tool';
import { McpTestServer } from '../support/mcp-test-server';
import { secretsFrom } from '../../core/secrets';

const server = new McpTestServer();
let connected: McpServerTools | undefined;
beforeAll(() => server.start());
afterAll(async () => {
  await connected?.close();
  await server.stop();
});

const outbound = (allow: string[]) =>
  createOutboundHttp({
    policy: createDestinationPolicy('MCP_ALLOWED_DOMAINS', allow),
    timeoutMs: 5_000,
    breakerFailures: 5,
    breakerRecoveryMs: 1_000,
    maxAttempts: 2,
    initialBackoffMs: 10,
  });
const context = { tenantId: 't', userId: 'u', roles: [], sessionId: '', taskId: 'task' };

it("imports a server's tools with their schemas, calls them, types their errors, and reconnects after the server restarts", async () => {
  connected = await connectMcpServer({ name: 'weather', url: server.url }, outbound(['127.0.0.1']), { secrets: secretsFrom({}), defaultRateLimit: 30 });
  const registry = createToolRegistry([]);
  registry.add(connected.tools);
  expect(registry.list().map((t) => [t.name, t.category, t.rateLimitPerMinute])).toEqual([
    ['weather_forecast', 'mcp:weather', 30],
    ['weather_broken', 'mcp:weather', 30],
  ]);
  expect(registry.get('weather_forecast')!.parameters).toMatchObject({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] });

  expect(await registry.execute('weather_forecast', { city: 'Oslo', days: 2 }, context)).toEqual({ ok: true, content: 'Sunny in Oslo for 2 day(s)' });
  // The server's schema is checked before any call.
  const callsBefore = server.calls;
  expect(await registry.execute('weather_forecast', { days: 2 }, context)).toMatchObject({
    ok: false,
    error: { category: 'validation', message: expect.stringContaining('city') },
  });
  expect(server.calls).toBe(callsBefore);
  expect(await registry.execute('weather_broken', {}, context)).toEqual({
    ok: false,
    error: { category: 'execution', message: 'the weather station is offline' },
  });

  // A restart drops every session; the next call opens a new one.
  await server.stop();
  await server.start();
  expect(await registry.execute('weather_forecast', { city: 'Bergen' }, context)).toEqual({ ok: true, content: 'Sunny in Bergen for 1 day(s)' });
});

it('speaks the older HTTP+SSE transport to a server that has no Streamable HTTP endpoint', async () => {
  const legacy = await connectMcpServer({ name: 'legacy', url: server.sseUrl }, outbound(['127.0.0.1']), { secrets: secretsFrom({}), defaultRateLimit: 60 });
  try {
    const registry = createToolRegistry([]);
    registry.add(legacy.tools);
    expect(await registry.execute('legacy_forecast', { city: 'Turku' }, context)).toEqual({ ok: true, content: 'Sunny in Turku for 1 day(s)' });
  } finally {
    await legacy.close();
  }
});

it('refuses a server outside MCP_ALLOWED_DOMAINS', async () => {
  const refused = await connectMcpServer({ name: 'weather', url: server.url }, outbound(['mcp.example.com']), {
    secrets: secretsFrom({}),
    defaultRateLimit: 60,
  }).catch((err: unknown) => err);
  expect(refused).toBeInstanceOf(ToolError);
  expect((refused as ToolError).message).toBe('host 127.0.0.1 is not in the allowlist (MCP_ALLOWED_DOMAINS)');
});
