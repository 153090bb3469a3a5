import { loadConfig } from '../../core/config';
import { startToolSources } from '../../core/tools';
import { submitTask, waitForFinish } from '../support/grpc';
import { McpTestServer } from '../support/mcp-test-server';
import { until } from '../support/orchestration';
import { startTestStack, testToolRegistry, type TestStack } from '../support/stack';
import { itLeavesEveryTaskVerified } from '../support/verification';

// An admin registers an MCP server at runtime over REST; the processes following the stored tool
// sources (here API and worker share one registry) pick it up, agents can call its tools, and
// removing it takes them away again.

const mcpServer = new McpTestServer();
const tools = testToolRegistry();
let stack: TestStack;
let sources: { close(): Promise<void> };
const name = `rt${Date.now().toString(36)}`;

beforeAll(async () => {
  await mcpServer.start();
  stack = await startTestStack({ tools });
  const config = loadConfig({});
  sources = await startToolSources(
    tools,
    { ...config, outbound: { ...config.outbound, mcpAllowedDomains: ['127.0.0.1'] } },
    { database: { url: process.env.DATABASE_URL!, pool: stack.pool } },
  );
});
afterAll(async () => {
  await sources.close();
  await stack.stop();
  await mcpServer.stop();
});

async function rest(method: string, path: string, key: string, body?: unknown) {
  const response = await fetch(`http://127.0.0.1:${stack.api.httpPort}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}
const toolNames = async (key: string) => ((await rest('GET', '/tools/list', key)).body.tools as Array<{ name: string }>).map((t) => t.name);

it('registers an MCP server at runtime for admins only, offers its tools to agents, and removes them again', async () => {
  const admin = await stack.newApiKey({ tenantId: stack.principal.tenantId, userId: 'ops', roles: ['admin'] });
  const source = { kind: 'mcp', config: { name, url: mcpServer.url } };
  expect(await rest('POST', '/tools/sources', stack.apiKey, source)).toMatchObject({
    status: 403,
    body: { code: 'PERMISSION_DENIED', error: 'registering a tool source needs the admin role' },
  });
  expect(await rest('POST', '/tools/sources', admin, { kind: 'mcp', config: { name, url: 'not a url' } })).toMatchObject({
    status: 400,
    body: { error: expect.stringContaining('config: url:') },
  });
  expect(await rest('POST', '/tools/sources', admin, { kind: 'grpc', config: {} })).toMatchObject({
    status: 400,
    body: { error: 'kind must be "mcp" or "openapi", not "grpc"' },
  });
  // Where a source points is checked when it is registered, not only when it is first called.
  expect(await rest('POST', '/tools/sources', admin, { kind: 'mcp', config: { name, url: 'https://mcp.unlisted.example/mcp' } })).toMatchObject({
    status: 400,
    body: { code: 'INVALID_ARGUMENT', error: 'config: host mcp.unlisted.example is not in the allowlist (MCP_ALLOWED_DOMAINS)' },
  });
  expect(
    await rest('POST', '/tools/sources', admin, {
      kind: 'openapi',
      config: { name, spec_url: 'http://127.0.0.1:1/openapi.json', base_url: 'http://169.254.169.254/latest' },
    }),
  ).toMatchObject({
    status: 400,
    body: { error: 'config: host 169.254.169.254 is not in the allowlist (OPENAPI_ALLOWED_DOMAINS)' },
  });
  expect(await rest('POST', '/tools/sources', admin, source)).toEqual({ status: 200, body: { name, kind: 'mcp', scope: 'tenant' } });
  expect(await rest('POST', '/tools/sources', admin, source)).toMatchObject({ status: 409, body: { code: 'ALREADY_EXISTS' } });
  expect((await rest('GET', '/tools/sources', admin)).body.sources).toEqual(
    expect.arrayContaining([{ name, kind: 'mcp', config: { name, url: mcpServer.url }, scope: 'tenant' }]),
  );

  await until(async () => ((await toolNames(stack.apiKey)).includes(`${name}_forecast`) ? true : undefined));
  const query = `runtime weather ${name}`;
  stack.model.on((_text, body) => JSON.stringify(body.messages).includes('"tool_call_id":"rt-1"'), { content: 'It is sunny in Rome.' });
  stack.model.on(query, { toolCalls: [{ id: 'rt-1', name: `${name}_forecast`, arguments: '{"city":"Rome"}' }] });
  const { task_id } = await submitTask(stack.orchestrator, { query });
  expect(await waitForFinish(stack.orchestrator, task_id)).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'It is sunny in Rome.' });

  expect(await rest('DELETE', `/tools/sources/${name}`, admin)).toEqual({ status: 200, body: { name, removed: true } });
  expect((await rest('DELETE', `/tools/sources/${name}`, admin)).status).toBe(404);
  await until(async () => (!(await toolNames(stack.apiKey)).includes(`${name}_forecast`) ? true : undefined));
});

itLeavesEveryTaskVerified(() => stack.everyTask());
