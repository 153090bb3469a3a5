import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ephemeralListen, startApiServer, type ApiServer } from '../../api/server';
import { loadConfig } from '../../core/config';
import { startToolSources } from '../../core/tools';
import { unaryCall } from '../../protos/clients';
import { waitForFinish } from '../support/grpc';
import { McpTestServer } from '../support/mcp-test-server';
import { until } from '../support/orchestration';
import { startTestStack, testToolRegistry, type TestStack } from '../support/stack';

// Tool sources registered at runtime, attacked: one tenant's source must reach only its own agents,
// only a platform admin registers sources for everyone, and no source may read a file of the server
// or a secret outside the tool-secret prefix (the model provider's key above all), whether it comes
// through the API or straight into the database.

const mcpServer = new McpTestServer();
const tools = testToolRegistry();
const providerKey = 'sk-provider-secret-never-leaves';
let stack: TestStack;
let sources: { close(): Promise<void> };
let specDirApi: ApiServer;
let specDir: string;
const run = Date.now().toString(36);
const keys: Record<'adminA' | 'userA' | 'adminB' | 'userB' | 'platform', string> = { adminA: '', userA: '', adminB: '', userB: '', platform: '' };

beforeAll(async () => {
  await mcpServer.start();
  stack = await startTestStack({ tools });
  const config = loadConfig({});
  // The worker's and API's view of stored sources, with the provider's key among its secrets.
  const secrets = (name: string) => ({ OPENAI_API_KEY: providerKey, TOOL_SECRET_WEATHER: 'weather-token' })[name];
  sources = await startToolSources(
    tools,
    { ...config, secrets, outbound: { ...config.outbound, mcpAllowedDomains: ['127.0.0.1'] } },
    { database: { url: process.env.DATABASE_URL!, pool: stack.pool } },
  );
  specDir = mkdtempSync(path.join(tmpdir(), 'weft-specs-'));
  specDirApi = await startApiServer(
    { ...stack.apiDeps, toolSourceRules: { allowlists: { mcp: ['127.0.0.1'], openapi: ['127.0.0.1'] }, secretPrefix: 'TOOL_SECRET_', specDir } },
    ephemeralListen(),
  );
  const tenantA = `tools-a-${run}`;
  const tenantB = `tools-b-${run}`;
  keys.adminA = await stack.newApiKey({ tenantId: tenantA, userId: 'ada', roles: ['admin'] });
  keys.userA = await stack.newApiKey({ tenantId: tenantA, userId: 'abe', roles: [] });
  keys.adminB = await stack.newApiKey({ tenantId: tenantB, userId: 'bea', roles: ['admin'] });
  keys.userB = await stack.newApiKey({ tenantId: tenantB, userId: 'bo', roles: [] });
  keys.platform = await stack.newApiKey({ tenantId: `ops-${run}`, userId: 'root', roles: ['platform_admin'] });
});
afterAll(async () => {
  await specDirApi.shutdown();
  await sources.close();
  await stack.stop();
  await mcpServer.stop();
});

async function rest(method: string, route: string, key: string, body?: unknown, port = stack.api.httpPort) {
  const response = await fetch(`http://127.0.0.1:${port}${route}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}
const toolNames = async (key: string) => ((await rest('GET', '/tools/list', key)).body.tools as Array<{ name: string }>).map((t) => t.name);
const mcpSource = (name: string, extra: Record<string, unknown> = {}) => ({ kind: 'mcp', config: { name, url: mcpServer.url, ...extra } });

it("a tenant's source reaches only that tenant's agents; discovery, metadata, calls and removal by another tenant find nothing", async () => {
  const name = `a${run}`;
  const tool = `${name}_forecast`;
  expect(await rest('POST', '/tools/sources', keys.adminA, mcpSource(name))).toEqual({ status: 200, body: { name, kind: 'mcp', scope: 'tenant' } });
  await until(async () => ((await toolNames(keys.userA)).includes(tool) ? true : undefined));

  expect(await toolNames(keys.userB)).not.toContain(tool);
  expect((await rest('GET', `/tools/${tool}/metadata`, keys.userB)).status).toBe(404);
  const agentB = stack.client('agent', keys.userB);
  expect((await unaryCall(agentB, 'GetCapabilities', {})).supported_tools).not.toContain(tool);
  expect((await unaryCall(agentB, 'DiscoverTools', { query: 'forecast' })).tools.map((t) => t.name)).not.toContain(tool);
  expect((await rest('GET', '/tools/sources', keys.adminB)).body.sources).not.toEqual(expect.arrayContaining([expect.objectContaining({ name })]));
  expect((await rest('DELETE', `/tools/sources/${name}`, keys.adminB)).status).toBe(404);

  // Tenant B's agent is told to call it anyway (a model can name any tool): it is an unknown tool, and the server sees no call.
  const callsBefore = mcpServer.calls;
  const query = `forecast for tenant b ${run}`;
  stack.model.on((_text, body) => JSON.stringify(body.messages).includes('"tool_call_id":"b-1"'), { content: 'could not' });
  stack.model.on(query, { toolCalls: [{ id: 'b-1', name: tool, arguments: '{"city":"Oslo"}' }] });
  const orchestratorB = stack.client('orchestrator', keys.userB);
  const submitted = await unaryCall(orchestratorB, 'SubmitTask', { query });
  await waitForFinish(orchestratorB, submitted.task_id);
  const toolResult = stack.model.requests.map((request) => JSON.stringify(request.body)).find((body) => body.includes('"tool_call_id":"b-1"'));
  expect(toolResult).toContain(`unknown tool ${tool}`);
  expect(mcpServer.calls).toBe(callsBefore);

  // Its own tenant's agents do call it.
  const ownQuery = `forecast for tenant a ${run}`;
  stack.model.on((_text, body) => JSON.stringify(body.messages).includes('"tool_call_id":"a-1"'), { content: 'sunny' });
  stack.model.on(ownQuery, { toolCalls: [{ id: 'a-1', name: tool, arguments: '{"city":"Rome"}' }] });
  const orchestratorA = stack.client('orchestrator', keys.userA);
  const own = await unaryCall(orchestratorA, 'SubmitTask', { query: ownQuery });
  expect((await waitForFinish(orchestratorA, own.task_id)).result).toBe('sunny');
  expect(mcpServer.calls).toBe(callsBefore + 1);
  expect(await rest('DELETE', `/tools/sources/${name}`, keys.adminA)).toEqual({ status: 200, body: { name, removed: true } });
});

it('only a platform admin registers a source for every tenant', async () => {
  const name = `p${run}`;
  expect(await rest('POST', '/tools/sources', keys.adminA, { ...mcpSource(name), scope: 'platform' })).toMatchObject({
    status: 403,
    body: { error: 'registering a tool source for every tenant needs the platform_admin role' },
  });
  expect(await rest('POST', '/tools/sources', keys.platform, { ...mcpSource(name), scope: 'platform' })).toEqual({
    status: 200,
    body: { name, kind: 'mcp', scope: 'platform' },
  });
  await until(async () =>
    (await toolNames(keys.userB)).includes(`${name}_forecast`) && (await toolNames(keys.userA)).includes(`${name}_forecast`) ? true : undefined,
  );
  // A tenant's admin cannot remove it, even by naming the platform scope.
  expect((await rest('DELETE', `/tools/sources/${name}`, keys.adminA)).status).toBe(404);
  expect((await rest('DELETE', `/tools/sources/${name}?scope=platform`, keys.adminA)).status).toBe(403);
  expect((await rest('DELETE', `/tools/sources/${name}?scope=platform`, keys.platform)).status).toBe(200);
});

it('refuses secrets outside the tool-secret prefix, whichever field names them', async () => {
  const refusal = (secret: string) => ({
    status: 400,
    body: expect.objectContaining({ error: `config: secret ${secret} is not allowed: secrets of runtime sources must be named TOOL_SECRET_*` }),
  });
  expect(await rest('POST', '/tools/sources', keys.adminA, mcpSource(`s1${run}`, { bearer_token_env: 'OPENAI_API_KEY' }))).toEqual(refusal('OPENAI_API_KEY'));
  const openApi = (auth: Record<string, unknown>) => ({ kind: 'openapi', config: { name: `s2${run}`, spec_url: 'http://127.0.0.1:1/openapi.json', auth } });
  expect(await rest('POST', '/tools/sources', keys.adminA, openApi({ type: 'bearer', token_env: 'WEFT_LLM_API_KEY' }))).toEqual(refusal('WEFT_LLM_API_KEY'));
  expect(await rest('POST', '/tools/sources', keys.adminA, openApi({ type: 'api_key', in: 'header', name: 'x-key', key_env: 'DATABASE_URL' }))).toEqual(
    refusal('DATABASE_URL'),
  );
  expect(await rest('POST', '/tools/sources', keys.adminA, openApi({ type: 'basic', username_env: 'TOOL_SECRET_U', password_env: 'PGPASSWORD' }))).toEqual(
    refusal('PGPASSWORD'),
  );
});

it('refuses spec_file outside the spec folder, and entirely without one', async () => {
  const withFile = (file: string) => ({ kind: 'openapi', config: { name: `f${run}`, spec_file: file, base_url: 'http://127.0.0.1:1' } });
  expect(await rest('POST', '/tools/sources', keys.adminA, withFile('/etc/passwd'))).toMatchObject({
    status: 400,
    body: { error: 'config: spec_file is not allowed for sources registered at runtime (no WEFT_TOOL_SPEC_DIR is configured); use spec_url' },
  });
  mkdirSync(path.join(specDir, 'nested'), { recursive: true });
  writeFileSync(path.join(specDir, 'nested', 'pets.json'), '{}');
  symlinkSync('/etc/passwd', path.join(specDir, 'passwd-link.json'));
  const port = specDirApi.httpPort;
  for (const file of ['/etc/passwd', '../../../../etc/passwd', 'passwd-link.json', `${specDir}/../outside.json`]) {
    const answer = await rest('POST', '/tools/sources', keys.adminA, withFile(file), port);
    expect([answer.status, answer.body.error]).toEqual([
      400,
      expect.stringMatching(/^config: spec_file .* (is outside the spec folder|does not exist in the spec folder)$/),
    ]);
  }
  // Inside the folder it is accepted (the spec itself is read when the source loads).
  expect((await rest('POST', '/tools/sources', keys.adminA, withFile('nested/pets.json'), port)).status).toBe(200);
  expect((await rest('DELETE', `/tools/sources/f${run}`, keys.adminA, undefined, port)).status).toBe(200);
});

it('a source written straight into the database still cannot read the provider key: it is never sent', async () => {
  const insert = (name: string, secretName: string) =>
    stack.pool.query(`INSERT INTO tool_sources (name, kind, config, tenant_id, created_by, created_at) VALUES ($1, 'mcp', $2, $3, 'sql', now())`, [
      name,
      JSON.stringify({ name, url: mcpServer.url, bearer_token_env: secretName }),
      `tools-a-${run}`,
    ]);
  await insert(`db1${run}`, 'OPENAI_API_KEY');
  await insert(`db2${run}`, 'TOOL_SECRET_WEATHER');
  // The prefixed one loads (with its token); the other never connects.
  await until(async () => ((await toolNames(keys.userA)).includes(`db2${run}_forecast`) ? true : undefined));
  expect(mcpServer.authorizations).toContain('Bearer weather-token');
  expect(mcpServer.authorizations.join('\n')).not.toContain(providerKey);
  expect(await toolNames(keys.userA)).not.toContain(`db1${run}_forecast`);
  await stack.pool.query('DELETE FROM tool_sources WHERE name = ANY($1)', [[`db1${run}`, `db2${run}`]]);
});
