import { Registry } from 'prom-client';
import { createModelGateway } from '../../core/llm/gateway';
import { countMessageTokens, countTextTokens } from '../../core/llm/tokenizer';
import { createModelMetrics } from '../../core/telemetry/model-metrics';
import { userText } from '../../core/transcript';
import { ScriptedModelServer } from '../model-server/scripted-model-server';
import { testCatalog } from '../support/test-catalog';

// A provider that reports no usage (many OpenAI-compatible servers, always or when streaming): the
// gateway counts the call with the model's tokenizer and says so, in the answer and the metrics,
// whether the answer came whole or streamed.

const server = new ScriptedModelServer();
beforeAll(() => server.start());
afterAll(() => server.stop());

const answer = 'Durable execution means the work survives crashes, because every step is recorded before it is acted on.';

it.each([
  ['whole', false],
  ['streamed', true],
])('counts a %s answer whose provider reported no usage, and marks it estimated', async (_shape, streamed) => {
  const question = `what is durable execution, ${streamed ? 'streamed' : 'whole'}?`;
  server.on(question, { content: answer, omitUsage: true });
  const registry = new Registry();
  const gateway = createModelGateway(testCatalog(server.baseURL), { observer: createModelMetrics(registry) });
  const messages = [userText(question)];
  const partials: string[] = [];
  const completion = await gateway.complete({ tier: 'MEDIUM', messages, ...(streamed ? { onPartial: (text: string) => partials.push(text) } : {}) });

  expect(completion.usage).toEqual({
    promptTokens: countMessageTokens(messages, 'o200k_base'),
    completionTokens: countTextTokens(answer, 'o200k_base'),
    totalTokens: countMessageTokens(messages, 'o200k_base') + countTextTokens(answer, 'o200k_base'),
    estimated: true,
  });
  expect(completion.usage.completionTokens).toBeGreaterThan(10);
  expect(partials.join('')).toBe(streamed ? answer : '');
  const estimated = (await registry.getSingleMetric('weft_model_estimated_tokens_total')!.get()).values;
  expect(estimated.find((v) => v.labels.kind === 'completion')?.value).toBe(completion.usage.completionTokens);
});

it("keeps a provider's own usage as it reported it", async () => {
  server.on('reported usage', { content: 'fine', usage: { prompt_tokens: 7, completion_tokens: 2 } });
  const gateway = createModelGateway(testCatalog(server.baseURL));
  const completion = await gateway.complete({ tier: 'MEDIUM', messages: [userText('reported usage')] });
  expect(completion.usage).toEqual({ promptTokens: 7, completionTokens: 2, totalTokens: 9 });
});
