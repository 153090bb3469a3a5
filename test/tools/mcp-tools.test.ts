import { createDestinationPolicy } from '../../core/tools/outbound/destination-policy';
import { createOutboundHttp } from '../../core/tools/outbound/outbound-http';
import { connectMcpServer, type McpServerTools } from '../../core/tools/mcp/mcp-server';
import { createToolRegistry } from '../../core/tools/registry';
import { ToolError } from '../../core/tools/tool';
import { Mcp2026TestServer } from '../support/mcp-2026-test-server';
import { McpTestServer } from '../support/mcp-test-server';
import { secretsFrom } from '../../core/secrets';

// Weft's MCP client against a 2025-only server (v1 SDK: `initialize` and sessions) and a
// 2026-07-28 server (v2 SDK: `server/discover`, stateless): each gets the newest revision it speaks.

const server2025 = new McpTestServer();
const server2026 = new Mcp2026TestServer();
const connected: McpServerTools[] = [];
beforeAll(() => Promise.all([server2025.start(), server2026.start()]));
afterAll(async () => {
  await Promise.all(connected.map((tools) => tools.close()));
  await Promise.all([server2025.stop(), server2026.stop()]);
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
const secrets = secretsFrom({ WEATHER_TOKEN: 'weather-token' });
const servers = [
  { kind: '2025-only (v1 SDK)', server: server2025, revision: '2025-11-25' },
  { kind: '2026-07-28 (v2 SDK)', server: server2026, revision: '2026-07-28' },
];

async function registryOf(name: string, url: string, extra: { timeout_ms?: number } = {}) {
  const tools = await connectMcpServer({ name, url, ...extra }, outbound(['127.0.0.1']), { secrets, defaultRateLimit: 60 });
  connected.push(tools);
  const registry = createToolRegistry([]);
  registry.add(tools.tools);
  return registry;
}

async function eventually(check: () => boolean, timeoutMs = 5_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !check();) {
    if (Date.now() > deadline) throw new Error('the condition did not hold in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

it.each(servers)(
  'speaks $revision to a $kind server: imports its tools with their schemas, calls them with its bearer token, types their errors, and reconnects after it restarts',
  async ({ server, revision }) => {
    const tools = await connectMcpServer({ name: 'weather', url: server.url, bearer_token_env: 'WEATHER_TOKEN' }, outbound(['127.0.0.1']), {
      secrets,
      defaultRateLimit: 30,
    });
    connected.push(tools);
    const registry = createToolRegistry([]);
    registry.add(tools.tools);
    expect(registry.list().map((t) => [t.name, t.category, t.rateLimitPerMinute, t.idempotency])).toEqual([
      ['weather_forecast', 'mcp:weather', 30, 'idempotent'],
      ['weather_broken', 'mcp:weather', 30, 'idempotent'],
      ['weather_slow', 'mcp:weather', 30, 'idempotent'],
      ['weather_reset_station', 'mcp:weather', 30, 'at_most_once'],
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

    expect(server.callProtocolVersions.slice(-3)).toEqual([revision, revision, revision]);
    expect(new Set(server.authorizations)).toEqual(new Set(['Bearer weather-token']));
  },
);

it.each(servers)('cancels a call at the $kind server when it outlives its timeout', async ({ server, revision }) => {
  const registry = await registryOf('patient', server.url, { timeout_ms: 300 });
  const [callsBefore, cancelledBefore] = [server.calls, server.cancelledCalls];
  expect(await registry.execute('patient_slow', {}, context)).toEqual({
    ok: false,
    error: { category: 'execution', message: 'patient_slow timed out after 300 ms' },
  });
  expect(server.calls).toBe(callsBefore + 1);
  expect(server.callProtocolVersions.at(-1)).toBe(revision);
  await eventually(() => server.cancelledCalls === cancelledBefore + 1);
});

it('does not send a destructive call again when its session has expired, and opens a new session for the next call', async () => {
  const registry = await registryOf('station', server2025.url);
  await server2025.stop();
  await server2025.start();
  const callsBefore = server2025.calls;
  expect(await registry.execute('station_reset_station', {}, context)).toMatchObject({ ok: false, error: { category: 'network' } });
  expect(server2025.calls).toBe(callsBefore);
  expect(await registry.execute('station_reset_station', {}, context)).toEqual({ ok: true, content: 'station reset' });
  expect(server2025.calls).toBe(callsBefore + 1);
});

it.each(servers)('does not send a destructive call again when the connection breaks after the $kind server received it', async ({ server }) => {
  const registry = await registryOf('fragile', server.url);
  const callsBefore = server.calls;
  server.breakConnectionOnReset = true;
  try {
    expect(await registry.execute('fragile_reset_station', {}, context)).toMatchObject({ ok: false, error: { category: 'network' } });
  } finally {
    server.breakConnectionOnReset = false;
  }
  expect(server.calls).toBe(callsBefore + 1);
});

it('speaks the older HTTP+SSE transport, in a 2025 revision, to a server that has no Streamable HTTP endpoint', async () => {
  const registry = await registryOf('legacy', server2025.sseUrl);
  expect(await registry.execute('legacy_forecast', { city: 'Turku' }, context)).toEqual({ ok: true, content: 'Sunny in Turku for 1 day(s)' });
  expect(server2025.callProtocolVersions.at(-1)).toBe('2025-11-25');
});

it('refuses a server outside MCP_ALLOWED_DOMAINS', async () => {
  const refused = await connectMcpServer({ name: 'weather', url: server2026.url }, outbound(['mcp.example.com']), {
    secrets,
    defaultRateLimit: 60,
  }).catch((err: unknown) => err);
  expect(refused).toBeInstanceOf(ToolError);
  expect((refused as ToolError).message).toBe('host 127.0.0.1 is not in the allowlist (MCP_ALLOWED_DOMAINS)');
});
