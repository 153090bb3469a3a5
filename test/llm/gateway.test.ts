import { createPool } from '../../core/db/database';
import { createModelGateway, type ModelGateway } from '../../core/llm/gateway';
import { ModelUnavailableError, UnknownModelError } from '../../core/llm/gateway-errors';
import type { ModelCatalog } from '../../core/llm/model-catalog';
import { userText } from '../../core/transcript';
import { ScriptedModelServer } from '../model-server/scripted-model-server';
import { testCatalog } from '../support/test-catalog';

// The gateway against the scripted model server: two providers on it ("alpha" serving the cheap
// medium model, "beta" the dearer one), so which provider a call reached shows in the request body.

const server = new ScriptedModelServer();
beforeAll(() => server.start());
afterAll(() => server.stop());
beforeEach(() => server.reset());

const CHEAP = 'cheap-medium';
const DEAR = 'dear-medium';

function twoProviderCatalog(resilience: Record<string, unknown> = {}, alpha: Record<string, unknown> = {}): ModelCatalog {
  return testCatalog(server.baseURL, (doc) => {
    doc.providers = [
      { id: 'alpha', kind: 'OPENAI', base_url: server.baseURL, ...alpha },
      { id: 'beta', kind: 'DEEPSEEK', base_url: server.baseURL },
    ];
    // Listed dearest first: the gateway orders by price, not by the file.
    doc.models = [
      { id: DEAR, provider: 'beta', tier: 'MEDIUM', prompt_per_1k: 3, completion_per_1k: 6 },
      { id: CHEAP, provider: 'alpha', tier: 'MEDIUM', prompt_per_1k: 1, completion_per_1k: 2, cached_prompt_per_1k: 0.1 },
      { id: 'unlisted-large', provider: 'alpha', tier: 'LARGE', available: false },
    ];
    doc.embedding = { provider: 'alpha', model: 'alpha-embedding' };
    Object.assign(
      doc.resilience,
      { max_attempts: 3, initial_backoff_ms: 10, max_backoff_ms: 20, breaker_failures: 2, breaker_half_open_after_ms: 300 },
      resilience,
    );
  });
}

const modelsAsked = () => server.requests.filter((r) => r.path === '/v1/chat/completions').map((r) => r.body.model);
const ask = (gateway: ModelGateway, text: string) => gateway.complete({ tier: 'MEDIUM', messages: [userText(text)] });
const forModel = (model: string, text: string) => (last: string, body: Record<string, unknown>) => body.model === model && last === text;

it('sends a tier request to the cheapest available model and prices it from the catalog, cached prompt tokens included', async () => {
  const gateway = createModelGateway(twoProviderCatalog());
  server.on(forModel(CHEAP, 'price me'), { content: 'priced', usage: { prompt_tokens: 2000, completion_tokens: 500, cached_tokens: 1000 } });
  const answer = await ask(gateway, 'price me');
  expect(answer).toMatchObject({ model: CHEAP, provider: 'OPENAI', tier: 'MEDIUM', finishReason: 'stop' });
  // 1000 uncached prompt tokens at $1/1K, 1000 cached at $0.1/1K, 500 completion at $2/1K.
  expect(answer.costUsd).toBeCloseTo(1 + 0.1 + 1, 10);
  expect(answer.usage).toEqual({ promptTokens: 2000, completionTokens: 500, totalTokens: 2500, cachedPromptTokens: 1000 });
  expect(modelsAsked()).toEqual([CHEAP]);
});

it('falls back to the next model of the tier when the first answers 500', async () => {
  const gateway = createModelGateway(twoProviderCatalog());
  server.on(forModel(CHEAP, 'fall back'), { status: 500, content: 'cheap one is broken' });
  server.on(forModel(DEAR, 'fall back'), { content: 'from the dear one', usage: { prompt_tokens: 1000, completion_tokens: 1000 } });
  const answer = await ask(gateway, 'fall back');
  expect(answer).toMatchObject({ model: DEAR, provider: 'DEEPSEEK', costUsd: 9 });
  expect(modelsAsked()).toEqual([CHEAP, DEAR]);
});

it('skips a provider that answered 429 until its Retry-After has passed', async () => {
  const gateway = createModelGateway(twoProviderCatalog());
  server.on((_text, body) => body.model === CHEAP, { status: 429, content: 'slow down', headers: { 'retry-after': '1' } }, { content: 'cheap again' });
  server.on((_text, body) => body.model === DEAR, { content: 'dear answer' });
  expect((await ask(gateway, 'first')).model).toBe(DEAR);
  expect((await ask(gateway, 'second')).model).toBe(DEAR);
  expect(modelsAsked()).toEqual([CHEAP, DEAR, DEAR]);
  await new Promise((resolve) => setTimeout(resolve, 1_050));
  expect((await ask(gateway, 'third')).model).toBe(CHEAP);
});

it("waits out a lone model's Retry-After, retries a 5xx with backoff, and never retries a 400", async () => {
  const gateway = createModelGateway(twoProviderCatalog());
  server.on(forModel(CHEAP, 'busy'), { status: 429, content: 'busy', headers: { 'retry-after': '1' } }, { content: 'now free' });
  const startedAt = Date.now();
  expect(await gateway.complete({ model: CHEAP, messages: [userText('busy')] })).toMatchObject({
    model: CHEAP,
    message: { parts: [{ kind: 'text', text: 'now free' }] },
  });
  expect(Date.now() - startedAt).toBeGreaterThanOrEqual(950);

  server.on(forModel(CHEAP, 'flaky'), { status: 503, content: 'flaky' }, { content: 'recovered' });
  expect((await gateway.complete({ model: CHEAP, messages: [userText('flaky')] })).model).toBe(CHEAP);

  server.reset();
  server.on(forModel(CHEAP, 'malformed'), { status: 400, content: 'your request is wrong' });
  await expect(gateway.complete({ model: CHEAP, messages: [userText('malformed')] })).rejects.toMatchObject({ status: 400 });
  expect(modelsAsked()).toEqual([CHEAP]);
});

it("gives up after its attempts with an error that names every candidate's failure", async () => {
  const gateway = createModelGateway(twoProviderCatalog({ breaker_failures: 10 }));
  server.on((text) => text === 'all down', { status: 502, content: 'bad gateway' });
  const error = await ask(gateway, 'all down').catch((err: unknown) => err);
  expect(error).toBeInstanceOf(ModelUnavailableError);
  expect((error as ModelUnavailableError).rateLimited).toBe(false);
  expect((error as Error).message).toBe(`no model could answer in tier MEDIUM: ${CHEAP}: 502 bad gateway; ${DEAR}: 502 bad gateway`);
  expect(modelsAsked()).toEqual([CHEAP, DEAR, CHEAP, DEAR, CHEAP, DEAR]);
  await expect(gateway.complete({ model: 'no-such-model', messages: [userText('x')] })).rejects.toBeInstanceOf(UnknownModelError);
  await expect(gateway.complete({ tier: 'LARGE', messages: [userText('x')] })).rejects.toThrow(
    'no model could answer in tier LARGE: unlisted-large: marked unavailable in the catalog',
  );
});

it("opens a provider's circuit after consecutive outages, probes it once half-open, and closes it on success", async () => {
  const gateway = createModelGateway(twoProviderCatalog({ max_attempts: 1 }));
  let alphaHealthy = false;
  server.on((_text, body) => body.model === CHEAP && !alphaHealthy, { status: 500, content: 'alpha down' });
  server.on((_text, body) => body.model === CHEAP && alphaHealthy, { content: 'alpha back' });
  server.on((_text, body) => body.model === DEAR, { content: 'beta answer' });

  await ask(gateway, 'one');
  await ask(gateway, 'two');
  expect(gateway.breakerState('alpha')).toBe('open');
  expect(modelsAsked()).toEqual([CHEAP, DEAR, CHEAP, DEAR]);
  // Open: alpha is not called at all.
  expect((await ask(gateway, 'three')).model).toBe(DEAR);
  expect(modelsAsked()).toHaveLength(5);

  // Half-open: one probe goes through; a failed probe opens the circuit again.
  await new Promise((resolve) => setTimeout(resolve, 350));
  expect(gateway.breakerState('alpha')).toBe('half_open');
  expect((await ask(gateway, 'four')).model).toBe(DEAR);
  expect(modelsAsked().slice(5)).toEqual([CHEAP, DEAR]);
  expect(gateway.breakerState('alpha')).toBe('open');

  // A successful probe closes it.
  await new Promise((resolve) => setTimeout(resolve, 350));
  alphaHealthy = true;
  expect((await ask(gateway, 'five')).model).toBe(CHEAP);
  expect(gateway.breakerState('alpha')).toBe('closed');
});

it('keeps a provider under its requests-per-minute limit, falling back while it is used up', async () => {
  const gateway = createModelGateway(twoProviderCatalog({}, { requests_per_minute: 1, tokens_per_minute: 100_000 }));
  server.on(() => true, { content: 'ok' });
  expect((await ask(gateway, 'a')).model).toBe(CHEAP);
  expect((await ask(gateway, 'b')).model).toBe(DEAR);
  // A lone model over its limit is refused locally, as a rate limit the caller can wait out.
  const error = await gateway.complete({ model: CHEAP, messages: [userText('c')] }).catch((err: unknown) => err);
  expect(error).toMatchObject({ rateLimited: true, message: expect.stringContaining('provider alpha is at its requests per minute limit') });
  expect(modelsAsked()).toEqual([CHEAP, DEAR]);
});

it('streams from the fallback when the first provider refuses before any delta, reporting where it came from', async () => {
  const gateway = createModelGateway(twoProviderCatalog());
  server.on(forModel(CHEAP, 'stream it'), { status: 503, content: 'no' });
  server.on(forModel(DEAR, 'stream it'), { content: 'streamed from beta', toolCalls: [{ id: 'c1', name: 'lookup', arguments: '{"q":"a long argument"}' }] });
  const deltas = [];
  for await (const delta of await gateway.stream({
    tier: 'MEDIUM',
    messages: [userText('stream it')],
    tools: [{ name: 'lookup', description: 'looks up', parameters: { type: 'object' } }],
  }))
    deltas.push(delta);
  expect(
    deltas
      .filter((d) => d.kind === 'text')
      .map((d) => (d as { text: string }).text)
      .join(''),
  ).toBe('streamed from beta');
  expect(deltas.filter((d) => d.kind === 'tool_call')).toEqual([{ kind: 'tool_call', id: 'c1', name: 'lookup', arguments: '{"q":"a long argument"}' }]);
  expect(deltas.at(-1)).toMatchObject({ kind: 'end', finishReason: 'tool_calls', model: DEAR, provider: 'DEEPSEEK', tier: 'MEDIUM' });
});

it("embeds with the catalog's embedding model unless one is named", async () => {
  const gateway = createModelGateway(twoProviderCatalog());
  expect(await gateway.embed(['a', 'b'])).toMatchObject({ model: 'alpha-embedding', provider: 'OPENAI' });
  expect((await gateway.embed(['a'], 'other-embedding')).model).toBe('other-embedding');
});

it("shares a provider's per-minute limit between processes through the database", async () => {
  const pool = createPool(process.env.DATABASE_URL!);
  try {
    // A provider id of its own, so no earlier run's minute counts here.
    const provider = `shared-${Date.now().toString(36)}`;
    const catalog = testCatalog(server.baseURL, (doc) => {
      doc.providers = [{ id: provider, base_url: server.baseURL, requests_per_minute: 2 }];
      doc.models = [{ id: CHEAP, provider, tier: 'MEDIUM' }];
      doc.embedding = { provider, model: 'e' };
      Object.assign(doc.resilience, { max_attempts: 1 });
    });
    // Two gateways on one database stand for an API and a worker.
    const [api, worker] = [createModelGateway(catalog, { pool }), createModelGateway(catalog, { pool })];
    server.on(() => true, { content: 'ok' });
    await ask(api, 'one');
    await ask(worker, 'two');
    await expect(ask(api, 'three')).rejects.toMatchObject({
      rateLimited: true,
      message: expect.stringContaining(`provider ${provider} is at its requests per minute limit`),
    });
    expect(modelsAsked()).toEqual([CHEAP, CHEAP]);
  } finally {
    await pool.end();
  }
});
