import { status as GrpcStatus } from '@grpc/grpc-js';
import { jsonToStruct, structToJson } from '../../api/grpc/struct';
import { unaryCall, type ServiceClient } from '../../protos/clients';
import type { CompletionChunk__Output } from '../../protos/generated/shannon/llm/CompletionChunk';
import type { GenerateCompletionRequest } from '../../protos/generated/shannon/llm/GenerateCompletionRequest';
import { grpcError, submitTask, waitForFinish } from '../support/grpc';
import { until } from '../support/orchestration';
import { startTestStack, TEST_MODEL, TEST_MODELS, type TestStack } from '../support/stack';
import { testCatalog } from '../support/test-catalog';

let stack: TestStack;
let llm: ServiceClient<'llm'>;
beforeAll(async () => {
  stack = await startTestStack({
    catalog: (baseURL) =>
      testCatalog(baseURL, (catalog) => {
        Object.assign(catalog.models[0]!, { prompt_per_1k: 1, completion_per_1k: 2 });
      }),
  });
  llm = stack.client('llm');
});
afterAll(() => stack.stop());

const chatBodies = () => stack.model.requests.filter((r) => r.path === '/v1/chat/completions').map((r) => r.body);
const weatherTool = {
  name: 'weather',
  description: 'the weather in a city',
  parameters: jsonToStruct({ type: 'object', properties: { city: { type: 'string' } } }),
};

it("GenerateCompletion uses the tier's model, sends the conversation and tools, and reports usage with cost", async () => {
  const answersTool = (body: Record<string, unknown>) => JSON.stringify(body.messages).includes('"tool_call_id":"w-1"');
  stack.model.on((text, body) => text === 'weather in Paris?' && !answersTool(body), {
    toolCalls: [{ id: 'w-1', name: 'weather', arguments: '{"city":"Paris"}' }],
    usage: { prompt_tokens: 1000, completion_tokens: 500 },
  });
  const response = await unaryCall(llm, 'GenerateCompletion', {
    messages: [
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'weather in Paris?' },
    ],
    tier: 'MODEL_TIER_SMALL',
    config: { temperature: 0.2, max_tokens: 64 },
    available_tools: [weatherTool],
  });
  expect(response).toMatchObject({
    completion: '',
    model_used: TEST_MODELS.SMALL,
    provider: 'PROVIDER_VLLM',
    cache_hit: false,
    finish_reason: 'tool_calls',
    usage: { prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500, cost_usd: 2, model: TEST_MODELS.SMALL, tier: 'MODEL_TIER_SMALL' },
  });
  expect(response.tool_calls).toHaveLength(1);
  expect(response.tool_calls[0]).toMatchObject({ name: 'weather', tool_id: 'w-1' });
  expect(structToJson(response.tool_calls[0]!.parameters)).toEqual({ city: 'Paris' });
  expect(chatBodies().at(-1)).toMatchObject({
    model: TEST_MODELS.SMALL,
    temperature: 0.2,
    max_tokens: 64,
    messages: [
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'weather in Paris?' },
    ],
    tools: [{ type: 'function', function: { name: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }],
  });

  // The tool's answer goes back paired with its call; a specific model (or alias) overrides the tier.
  stack.model.on((_text, body) => answersTool(body), { content: 'Sunny in Paris.' });
  const answered = await unaryCall(llm, 'GenerateCompletion', {
    messages: [
      { role: 'user', content: 'weather in Paris?' },
      { role: 'assistant', content: '', tool_calls: response.tool_calls },
      { role: 'tool', name: 'w-1', content: '{"sky":"clear"}' },
    ],
    specific_model: 'venice-uncensored',
  });
  expect(answered).toMatchObject({ completion: 'Sunny in Paris.', model_used: TEST_MODEL, finish_reason: 'stop' });
  expect((chatBodies().at(-1)!.messages as unknown[]).slice(1)).toEqual([
    { role: 'assistant', content: null, tool_calls: [{ id: 'w-1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } }] },
    { role: 'tool', tool_call_id: 'w-1', content: '{"sky":"clear"}' },
  ]);
});

it('enable_caching answers an identical request from the cache, never caches a truncated answer, and expires', async () => {
  const ask = (content: string, config: Record<string, unknown> = {}) =>
    unaryCall(llm, 'GenerateCompletion', { messages: [{ role: 'user', content }], config: { enable_caching: true, ...config } });
  const modelCalls = () => chatBodies().length;
  stack.model.on('cache me', { content: 'cached answer', usage: { prompt_tokens: 5, completion_tokens: 2 } });
  const first = await ask('cache me');
  expect(first).toMatchObject({ completion: 'cached answer', cache_hit: false, usage: { total_tokens: 7 } });
  const calls = modelCalls();
  const second = await ask('cache me');
  expect(second).toMatchObject({ completion: 'cached answer', cache_hit: true, finish_reason: 'stop', usage: { total_tokens: 0, cost_usd: 0 } });
  expect(modelCalls()).toBe(calls);
  // Another question under the caller's own key is the same entry.
  stack.model.on('a different question', { content: 'keyed answer' });
  expect(await ask('a different question', { cache_key: 'shared-key' })).toMatchObject({ completion: 'keyed answer', cache_hit: false });
  expect(await ask('another wording', { cache_key: 'shared-key' })).toMatchObject({ completion: 'keyed answer', cache_hit: true });
  // Without enable_caching nothing is served from the cache.
  expect(await unaryCall(llm, 'GenerateCompletion', { messages: [{ role: 'user', content: 'cache me' }] })).toMatchObject({ cache_hit: false });

  stack.model.on('cut short', { content: 'half an ans', finishReason: 'length' });
  await ask('cut short');
  expect(await ask('cut short')).toMatchObject({ cache_hit: false });

  await new Promise((resolve) => setTimeout(resolve, 1_100)); // the test stack caches for 1 s
  expect(await ask('cache me')).toMatchObject({ cache_hit: false });
});

it('StreamCompletion streams text deltas and whole tool calls, and ends with usage and finish reason', async () => {
  stack.model.on('stream a long answer', { content: 'The answer is long enough to arrive in pieces.' });
  const collect = (request: GenerateCompletionRequest) =>
    new Promise<CompletionChunk__Output[]>((resolve, reject) => {
      const chunks: CompletionChunk__Output[] = [];
      const call = llm.StreamCompletion(request);
      call.on('data', (chunk: CompletionChunk__Output) => chunks.push(chunk));
      call.on('end', () => resolve(chunks));
      call.on('error', reject);
    });
  const text = await collect({ messages: [{ role: 'user', content: 'stream a long answer' }] });
  expect(text.filter((c) => c.delta).length).toBeGreaterThan(2);
  expect(text.map((c) => c.delta).join('')).toBe('The answer is long enough to arrive in pieces.');
  expect(text.at(-1)).toMatchObject({ finish_reason: 'stop', usage: { model: TEST_MODEL, tier: 'MODEL_TIER_MEDIUM' } });
  expect(text.at(-1)!.usage!.total_tokens).toBeGreaterThan(0);

  stack.model.on('stream two tools', {
    toolCalls: [
      { id: 't-1', name: 'weather', arguments: '{"city":"Kyoto, the old capital"}' },
      { id: 't-2', name: 'weather', arguments: '{"city":"Osaka"}' },
    ],
  });
  const tools = await collect({ messages: [{ role: 'user', content: 'stream two tools' }], available_tools: [weatherTool] });
  const calls = tools.filter((c) => c.tool_call_delta).map((c) => [c.tool_call_delta!.tool_id, structToJson(c.tool_call_delta!.parameters)]);
  expect(calls).toEqual([
    ['t-1', { city: 'Kyoto, the old capital' }],
    ['t-2', { city: 'Osaka' }],
  ]);
  expect(tools.at(-1)!.finish_reason).toBe('tool_calls');
});

it('EmbedText returns one vector per text with its dimensions and model', async () => {
  const response = await unaryCall(llm, 'EmbedText', { texts: ['alpha', 'beta'] });
  expect(response).toMatchObject({ dimensions: 16, model_used: 'scripted-embedding' });
  expect(response.embeddings.map((e) => [e.text, e.vector.length])).toEqual([
    ['alpha', 16],
    ['beta', 16],
  ]);
  expect(response.embeddings[0]!.vector).not.toEqual(response.embeddings[1]!.vector);
});

it("AnalyzeComplexity takes a small model's verdict, and falls back to the heuristic without one", async () => {
  const verdict = {
    recommended_mode: 'COMPLEX',
    complexity_score: 0.78,
    required_capabilities: ['data_loading', 'analysis', 'visualization'],
    estimated_agents: 3,
    estimated_tokens: 5000,
    estimated_cost_usd: 0.08,
    reasoning: 'loading, analysis and charts',
  };
  stack.model.on((text, body) => body.model === TEST_MODELS.SMALL && text.includes('Analyze Q4 sales data'), { content: JSON.stringify(verdict) });
  const fromModel = await unaryCall(llm, 'AnalyzeComplexity', {
    query: 'Analyze Q4 sales data and create a visualization',
    available_tools: ['csv_loader', 'pandas', 'matplotlib'],
  });
  expect(fromModel).toEqual({ ...verdict, recommended_mode: 'EXECUTION_MODE_COMPLEX' });

  stack.model.on((text) => text.includes('Compare three vendors'), { status: 503, content: 'down' });
  const heuristic = await unaryCall(llm, 'AnalyzeComplexity', { query: 'Compare three vendors, then research prices and summarize the findings' });
  expect(heuristic.recommended_mode).toMatch(/^EXECUTION_MODE_(STANDARD|COMPLEX)$/);
  expect(heuristic.reasoning).not.toBe('');
  expect(heuristic.estimated_agents).toBeGreaterThanOrEqual(1);
  const simple = await unaryCall(llm, 'AnalyzeComplexity', { query: '2 + 2' });
  expect(simple).toMatchObject({ recommended_mode: 'EXECUTION_MODE_SIMPLE', required_capabilities: ['calculation'] });
});

it('ListModels lists the tier models with prices, filtered by tier and provider', async () => {
  const all = await unaryCall(llm, 'ListModels', {});
  expect(all.models.map((m) => [m.id, m.tier])).toEqual([
    [TEST_MODELS.SMALL, 'MODEL_TIER_SMALL'],
    [TEST_MODELS.MEDIUM, 'MODEL_TIER_MEDIUM'],
    [TEST_MODELS.LARGE, 'MODEL_TIER_LARGE'],
  ]);
  const small = await unaryCall(llm, 'ListModels', { tier: 'MODEL_TIER_SMALL' });
  expect(small.models).toEqual([
    expect.objectContaining({ id: TEST_MODELS.SMALL, provider: 'PROVIDER_VLLM', cost_per_1k_prompt_tokens: 1, cost_per_1k_completion_tokens: 2 }),
  ]);
  expect((await unaryCall(llm, 'ListModels', { provider: 'PROVIDER_OPENAI' })).models).toEqual([]);
});

it("maps bad input and provider failures to the seed's status codes", async () => {
  const cases: Array<[GenerateCompletionRequest, GrpcStatus]> = [
    [{ messages: [] }, GrpcStatus.INVALID_ARGUMENT],
    [{ messages: [{ role: 'wizard', content: 'hi' }] }, GrpcStatus.INVALID_ARGUMENT],
    [{ messages: [{ role: 'user', content: 'hi' }], config: { temperature: 5 } }, GrpcStatus.INVALID_ARGUMENT],
    [{ messages: [{ role: 'tool', name: 'nobody', content: 'orphan result' }] }, GrpcStatus.INVALID_ARGUMENT],
    [{ messages: [{ role: 'user', content: 'no script matches this' }] }, GrpcStatus.NOT_FOUND],
  ];
  for (const [request, code] of cases) expect((await grpcError(unaryCall(llm, 'GenerateCompletion', request))).code).toBe(code);
  stack.model.on('overloaded please', { status: 429, content: 'slow down', headers: { 'retry-after': '1' } });
  expect((await grpcError(unaryCall(llm, 'GenerateCompletion', { messages: [{ role: 'user', content: 'overloaded please' }] }))).code).toBe(
    GrpcStatus.RESOURCE_EXHAUSTED,
  );
  stack.model.on('broken provider', { status: 502, content: 'bad gateway' });
  expect((await grpcError(unaryCall(llm, 'GenerateCompletion', { messages: [{ role: 'user', content: 'broken provider' }] }))).code).toBe(
    GrpcStatus.UNAVAILABLE,
  );
  expect((await grpcError(unaryCall(llm, 'EmbedText', { texts: [] }))).code).toBe(GrpcStatus.INVALID_ARGUMENT);
  expect((await grpcError(unaryCall(llm, 'AnalyzeComplexity', { query: ' ' }))).code).toBe(GrpcStatus.INVALID_ARGUMENT);
  expect((await grpcError(unaryCall(stack.client('llm', 'weft_nope'), 'ListModels', {}))).code).toBe(GrpcStatus.UNAUTHENTICATED);
});

it('records what each call spent against the tenant and the user, session and task its metadata names', async () => {
  stack.model.on('account for me', { content: 'accounted', usage: { prompt_tokens: 1000, completion_tokens: 1000 } });
  const sessionId = `usage-session-${Date.now()}`;
  await unaryCall(llm, 'GenerateCompletion', {
    messages: [{ role: 'user', content: 'account for me' }],
    tier: 'MODEL_TIER_SMALL',
    metadata: { session_id: sessionId, task_id: 'usage-task', user_id: 'ann' },
  });
  const { rows } = await stack.pool.query('SELECT * FROM llm_usage WHERE session_id = $1', [sessionId]);
  expect(rows).toEqual([
    expect.objectContaining({
      tenant_id: stack.principal.tenantId,
      user_id: 'ann',
      task_id: 'usage-task',
      model: TEST_MODELS.SMALL,
      total_tokens: 2000,
      cost_usd: 3,
      cache_hit: false,
    }),
  ]);
});

it('a task that asks for caching has its model step answered from the cache the second time, and says so', async () => {
  stack.model.on('cache this task step', { content: 'step answer', usage: { prompt_tokens: 10, completion_tokens: 5 } });
  const run = async () => {
    const { task_id } = await submitTask(stack.orchestrator, { query: 'cache this task step', context: jsonToStruct({ enable_caching: true }) });
    return waitForFinish(stack.orchestrator, task_id);
  };
  const first = await run();
  expect(first).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'step answer', metrics: { cache_hit: false } });
  const asked = chatBodies().length;
  const second = await run();
  expect(second).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'step answer', metrics: { cache_hit: true, token_usage: { total_tokens: 0 } } });
  expect(chatBodies().length).toBe(asked);
  const refused = await grpcError(submitTask(stack.orchestrator, { query: 'q', context: jsonToStruct({ enable_caching: 'yes' }) }));
  expect([refused.code, refused.details]).toEqual([GrpcStatus.INVALID_ARGUMENT, 'context.enable_caching must be true or false']);
});

it('meters a streamed answer before it goes out: a finished stream settles its reservation, an abandoned one keeps it', async () => {
  const usageOf = async (sessionId: string) =>
    (
      await stack.pool.query<{ settled: boolean; prompt_tokens: number; completion_tokens: number; model: string }>(
        'SELECT settled, prompt_tokens, completion_tokens, model FROM llm_usage WHERE session_id = $1',
        [sessionId],
      )
    ).rows;
  stack.model.on('meter this stream', { content: 'metered', usage: { prompt_tokens: 12, completion_tokens: 3 } });
  const finished = `stream-usage-${Date.now()}`;
  await new Promise<void>((resolve, reject) => {
    const call = llm.StreamCompletion({ messages: [{ role: 'user', content: 'meter this stream' }], metadata: { session_id: finished } });
    call.on('data', () => undefined);
    call.on('end', resolve);
    call.on('error', reject);
  });
  expect(await usageOf(finished)).toEqual([{ settled: true, prompt_tokens: 12, completion_tokens: 3, model: TEST_MODEL }]);

  stack.model.on('abandon this stream', { content: 'never read', delayMs: 3_000 });
  const abandoned = `stream-abandoned-${Date.now()}`;
  const call = llm.StreamCompletion({ messages: [{ role: 'user', content: 'abandon this stream' }], metadata: { session_id: abandoned } });
  call.on('error', () => undefined);
  await until(async () => ((await usageOf(abandoned)).length === 1 ? true : undefined));
  call.cancel();
  const [reserved] = await usageOf(abandoned);
  expect(reserved).toMatchObject({ settled: false, completion_tokens: 0 });
  expect(reserved!.prompt_tokens).toBeGreaterThan(0);
});
