import { createToolRegistry } from '../../core/tools/registry';
import { toolMetadata, type ToolDefinition } from '../../core/tools/tool';
import { toolPolicy } from '../../core/tools/tool-policy';
import { startTestStack, type TestStack } from '../support/stack';
import { loadConfig } from '../../core/config';

const echo = (overrides: Partial<ToolDefinition> = {}): ToolDefinition => ({
  ...toolMetadata({
    name: 'echo_tool',
    version: '2.1.0',
    description: 'Echoes its input.',
    category: 'testing',
    parameters: { type: 'object', properties: { text: { type: 'string', maxLength: 10 } }, required: ['text'], additionalProperties: false },
    rateLimitPerMinute: 2,
  }),
  execute: async (args) => ({ echoed: args.text }),
  ...overrides,
});
const context = (tenantId: string) => ({ tenantId, userId: 'u', roles: [], sessionId: '', taskId: 't' });

describe('the registry', () => {
  it('validates arguments against the schema with errors that name the field', async () => {
    const registry = createToolRegistry([echo()]);
    expect(await registry.execute('echo_tool', { text: 'far too long a text' }, context('a'))).toEqual({
      ok: false,
      error: { category: 'validation', message: 'invalid arguments for echo_tool: text: must NOT have more than 10 characters' },
    });
    expect(await registry.execute('echo_tool', {}, context('a'))).toMatchObject({
      error: { message: "invalid arguments for echo_tool: text: must have required property 'text'" },
    });
  });

  it('limits each tool per tenant with a token bucket, overridable by <NAME>_RATE_LIMIT', async () => {
    const registry = createToolRegistry([echo()]);
    const call = (tenant: string) => registry.execute('echo_tool', { text: 'hi' }, context(tenant));
    expect(await call('a')).toEqual({ ok: true, content: { echoed: 'hi' } });
    expect(await call('a')).toMatchObject({ ok: true });
    expect(await call('a')).toEqual({ ok: false, error: { category: 'execution', message: 'echo_tool is limited to 2 calls per minute; retry in 30 s' } });
    // Another tenant has its own bucket.
    expect(await call('b')).toMatchObject({ ok: true });

    const raised = createToolRegistry([echo()], { rateLimits: loadConfig({ ECHO_TOOL_RATE_LIMIT: '1000' }).toolRateLimits });
    expect(raised.get('echo_tool')!.rateLimitPerMinute).toBe(1000);
    for (let i = 0; i < 10; i += 1) expect(await raised.execute('echo_tool', { text: 'hi' }, context('a'))).toMatchObject({ ok: true });
    expect(() => loadConfig({ ECHO_TOOL_RATE_LIMIT: 'lots' })).toThrow(
      'ECHO_TOOL_RATE_LIMIT: a tool\'s rate limit must be a whole number of calls per minute, got "lots"',
    );
  });
});

describe('discovery over HTTP', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(() => stack.stop());
  const get = async (path: string, key = stack.apiKey) => {
    const response = await fetch(`http://127.0.0.1:${stack.api.httpPort}${path}`, { headers: key ? { authorization: `Bearer ${key}` } : {} });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it("lists tools (by category), and serves each one's schema and metadata in the seed's fields", async () => {
    const all = await get('/tools/list');
    expect((all.body.tools as Array<{ name: string }>).map((t) => t.name)).toEqual(expect.arrayContaining(['calculator', 'file_read', 'file_write']));
    const files = await get('/tools/list?category=files');
    expect((files.body.tools as Array<{ name: string }>).map((t) => t.name).sort()).toEqual(['file_read', 'file_write', 'memory_read', 'memory_write']);
    expect(await get('/tools/calculator/schema')).toEqual({
      status: 200,
      body: { name: 'calculator', parameters: expect.objectContaining({ required: ['expression'] }) },
    });
    expect((await get('/tools/file_write/metadata')).body).toEqual({
      name: 'file_write',
      version: '1.0.0',
      description: expect.any(String),
      category: 'files',
      parameters: expect.any(Object),
      timeout_seconds: 5,
      memory_limit_mb: 128,
      rate_limit: 600,
      cost_per_use: 0,
      dangerous: true,
      requires_auth: false,
      sandboxed: false,
      session_aware: true,
      idempotency: 'keyed',
    });
    expect((await get('/tools/calculator/metadata')).body).toMatchObject({ idempotency: 'idempotent' });
    expect(await get('/tools/nope/metadata')).toMatchObject({ status: 404, body: { code: 'NOT_FOUND', error: 'tool nope not found' } });
    expect((await get('/tools/list', '')).status).toBe(401);
  });
});

describe('the tool policy', () => {
  const policy = toolPolicy({
    default: 'deny',
    rules: [
      { tools: ['echo_*'], effect: 'deny', users: ['mallory'] },
      { tools: ['echo_*'], effect: 'allow', roles: ['analyst', 'approver'] },
      { tools: ['*'], effect: 'allow', tenants: ['trusted'] },
    ],
  });
  const caller = (userId: string, roles: string[], tenantId = 'acme') => ({ tenantId, userId, roles, sessionId: '', taskId: 't' });

  it('lets the first matching rule decide who may call a tool, before any argument is looked at', async () => {
    const registry = createToolRegistry([echo({ rateLimitPerMinute: 0 })], { policy });
    expect(await registry.execute('echo_tool', { text: 'hi' }, caller('ann', ['analyst']))).toMatchObject({ ok: true });
    expect(await registry.execute('echo_tool', { text: 'hi' }, caller('mallory', ['analyst']))).toEqual({
      ok: false,
      error: { category: 'validation', message: 'mallory (tenant acme) may not use echo_tool: rule 1 of the tool policy denies it' },
    });
    expect(await registry.execute('echo_tool', {}, caller('bob', []))).toEqual({
      ok: false,
      error: { category: 'validation', message: "bob (tenant acme) may not use echo_tool: the tool policy's default denies it" },
    });
    expect(await registry.execute('echo_tool', { text: 'hi' }, caller('bob', [], 'trusted'))).toMatchObject({ ok: true });
  });

  it('refuses a policy file with mistakes, saying where', () => {
    expect(() => toolPolicy({ rules: [{ tools: [], effect: 'maybe' }] }, 'policy.yaml')).toThrow(
      /^policy\.yaml is invalid: rules\.0\.tools: .*rules\.0\.effect: /,
    );
  });
});
