import { createModelGateway } from '../../core/llm/gateway';
import { TranscriptError, type Message } from '../../core/transcript';
import { ScriptedModelServer } from '../model-server/scripted-model-server';
import { TEST_MODEL, testCatalog } from '../support/test-catalog';

// A transcript with every kind of part goes through the encoder to the provider; the scripted server
// records the body exactly as the provider would receive it.

const server = new ScriptedModelServer();
beforeAll(() => server.start());
afterAll(() => server.stop());

const transcript: Message[] = [
  { role: 'user', parts: [{ kind: 'text', text: 'Weather in Paris and Rome?' }] },
  {
    role: 'assistant',
    parts: [
      { kind: 'thinking', text: 'Two cities: two calls.', signature: 'sig-1' },
      { kind: 'text', text: 'Checking both.' },
      { kind: 'tool_use', id: 'call-paris', name: 'weather', input: { city: 'Paris' } },
      { kind: 'tool_use', id: 'call-rome', name: 'weather', input: { city: 'Rome', units: 'metric' } },
    ],
  },
  {
    role: 'user',
    parts: [
      { kind: 'tool_result', toolUseId: 'call-paris', content: { sky: 'clear', celsius: 21 } },
      { kind: 'tool_result', toolUseId: 'call-rome', content: 'station offline', isError: true },
      { kind: 'text', text: 'Keep it short.' },
    ],
  },
];

it('sends the transcript in order, pairs tool results with their calls by id, and keeps thinking out of the request', async () => {
  const gateway = createModelGateway(testCatalog(server.baseURL));
  server.on('Keep it short.', { reasoning: 'Rome failed; say so.', content: 'Paris: clear, 21 °C. Rome: no data.' });
  const reply = await gateway.complete({ tier: 'MEDIUM', system: 'You are terse.', messages: transcript });

  expect(server.requests.at(-1)!.body).toEqual({
    model: TEST_MODEL,
    messages: [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Weather in Paris and Rome?' },
      {
        role: 'assistant',
        content: 'Checking both.',
        tool_calls: [
          { id: 'call-paris', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
          { id: 'call-rome', type: 'function', function: { name: 'weather', arguments: '{"city":"Rome","units":"metric"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call-paris', content: '{"sky":"clear","celsius":21}' },
      { role: 'tool', tool_call_id: 'call-rome', content: 'station offline' },
      { role: 'user', content: 'Keep it short.' },
    ],
  });
  // The reply's reasoning is kept, ahead of its text, for audit and replay.
  expect(reply.message).toEqual({
    role: 'assistant',
    parts: [
      { kind: 'thinking', text: 'Rome failed; say so.' },
      { kind: 'text', text: 'Paris: clear, 21 °C. Rome: no data.' },
    ],
  });
});

it('refuses an invalid transcript before any call', async () => {
  const gateway = createModelGateway(testCatalog(server.baseURL));
  const calls = server.requests.length;
  const invalid: Message[][] = [
    // A tool call without its result.
    transcript.slice(0, 2),
    // A result answering no call.
    [transcript[0]!, { role: 'user', parts: [{ kind: 'tool_result', toolUseId: 'nobody', content: 'x' }] }],
    // Results after other parts could only be sent reordered.
    [...transcript.slice(0, 2), { role: 'user', parts: [...transcript[2]!.parts].reverse() }],
  ];
  for (const messages of invalid) {
    await expect(gateway.complete({ tier: 'MEDIUM', messages })).rejects.toBeInstanceOf(TranscriptError);
  }
  expect(server.requests.length).toBe(calls);
});
