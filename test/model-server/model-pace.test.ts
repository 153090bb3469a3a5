import OpenAI from 'openai';
import { ScriptedModelServer } from './scripted-model-server';

// The demo model answers at a model's pace, so a demo task runs long enough to watch and steer:
// no sooner than its first-token wait plus its tokens at the given rate (later is fine: the machine's speed varies).

const pace = { firstTokenMs: 300, tokensPerSecond: 100 };
const answer = 'word '.repeat(160); // 200 tokens by the server's estimate: 2 s at 100 tokens a second

it.each([false, true])('takes the first-token wait and the generation time (streaming: %s)', async (stream) => {
  const server = new ScriptedModelServer({ pace });
  server.on('pace me', { content: answer, usage: { prompt_tokens: 3, completion_tokens: 200 } });
  await server.start();
  try {
    const client = new OpenAI({ baseURL: server.baseURL, apiKey: 'unused' });
    const started = performance.now();
    if (stream) {
      let text = '';
      for await (const chunk of await client.chat.completions.create({ model: 'm', stream: true, messages: [{ role: 'user', content: 'pace me' }] }))
        text += chunk.choices[0]?.delta.content ?? '';
      expect(text).toBe(answer);
    } else {
      const reply = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'pace me' }] });
      expect(reply.choices[0]?.message.content).toBe(answer);
    }
    expect(performance.now() - started).toBeGreaterThanOrEqual(pace.firstTokenMs + 1_900);
  } finally {
    await server.stop();
  }
});

it('answers at once without a pace', async () => {
  const server = new ScriptedModelServer();
  server.on('quick', { content: answer });
  await server.start();
  try {
    const started = performance.now();
    await new OpenAI({ baseURL: server.baseURL, apiKey: 'unused' }).chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'quick' }] });
    expect(performance.now() - started).toBeLessThan(1_500);
  } finally {
    await server.stop();
  }
});
