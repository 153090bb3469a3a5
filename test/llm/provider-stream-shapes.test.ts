import { createModelGateway } from '../../core/llm/gateway';
import { userText } from '../../core/transcript';
import { ScriptedModelServer, type StreamQuirks } from '../model-server/scripted-model-server';
import { testCatalog } from '../support/test-catalog';

// The shapes providers answer in, through the gateway: reasoning under either field name (kept as
// thinking, never in the answer or its streamed text), a role-only first chunk, usage on every
// chunk instead of a last one, and OpenAI's own (role first, finish reason alone, usage last).

const servers: ScriptedModelServer[] = [];
afterAll(async () => {
  for (const server of servers) await server.stop();
});

async function serverWith(quirks: StreamQuirks) {
  const server = new ScriptedModelServer({ quirks });
  await server.start();
  servers.push(server);
  return server;
}

const answer = 'The bridge opened in 1894 and still lifts for tall ships.';

describe.each([
  ["OpenAI's shapes", {}],
  ['a role-only first chunk', { roleOnlyFirstChunk: true }],
  ['usage on every chunk', { usageOnEveryChunk: true }],
])('a stream with %s', (_name, quirks: StreamQuirks) => {
  it.each(['reasoning_content', 'reasoning'] as const)('keeps %s as thinking, out of the answer, and reads the usage', async (reasoningAs) => {
    const server = await serverWith(quirks);
    server.on('When did the bridge open?', {
      content: answer,
      reasoning: 'Recall the opening year.',
      reasoningAs,
      usage: { prompt_tokens: 9, completion_tokens: 14 },
    });
    const gateway = createModelGateway(testCatalog(server.baseURL));
    const partials: string[] = [];
    const completion = await gateway.complete({ tier: 'MEDIUM', messages: [userText('When did the bridge open?')], onPartial: (text) => partials.push(text) });
    expect(partials.join('')).toBe(answer);
    expect(completion.message.parts).toEqual([
      { kind: 'thinking', text: 'Recall the opening year.' },
      { kind: 'text', text: answer },
    ]);
    expect(completion.finishReason).toBe('stop');
    expect(completion.usage).toEqual({ promptTokens: 9, completionTokens: 14, totalTokens: 23 });
  });
});

it('reads reasoning under `reasoning` in a whole answer too', async () => {
  const server = await serverWith({});
  server.on('Whole, please', { content: answer, reasoning: 'Think first.', reasoningAs: 'reasoning' });
  const completion = await createModelGateway(testCatalog(server.baseURL)).complete({ tier: 'MEDIUM', messages: [userText('Whole, please')] });
  expect(completion.message.parts).toEqual([
    { kind: 'thinking', text: 'Think first.' },
    { kind: 'text', text: answer },
  ]);
});
