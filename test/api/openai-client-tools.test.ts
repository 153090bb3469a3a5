import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { listTaskEvents } from '../../core/events/event-log';
import { shannonCaller, type ShannonCaller } from '../support/shannon-http';
import { startTestStack, type TestStack } from '../support/stack';
import { itLeavesEveryTaskVerified } from '../support/verification';

// Tools an OpenAI client declares and runs itself: the model's call of one comes back to the client
// as OpenAI's tool_calls while the task waits, durably, for the result; the client's next request
// with the result goes on with the same task, whose model gets the result as any tool's.

let stack: TestStack;
let openai: OpenAI;
let http: ShannonCaller;
beforeAll(async () => {
  // A client's tool results are waited for as long as an approval is: short here, so one can time out.
  stack = await startTestStack({ settings: { approvalTimeoutMs: 4_000 } });
  openai = new OpenAI({ baseURL: `http://127.0.0.1:${stack.api.httpPort}/v1`, apiKey: stack.apiKey, maxRetries: 0 });
  http = shannonCaller(`http://127.0.0.1:${stack.api.httpPort}`, stack.apiKey);
});
afterAll(() => stack.stop());

const weather: ChatCompletionTool = {
  type: 'function',
  function: { name: 'get_weather', description: 'The weather in a city now', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
};
const requestsAbout = (text: string) => stack.model.requests.filter((r) => JSON.stringify(r.body.messages).includes(text));

it('passes the call back to the client, and goes on with the same task when the result comes', async () => {
  const question = `What is the weather in Paris? ${Date.now()}`;
  stack.model.on(
    question,
    { content: 'Let me check.', toolCalls: [{ id: 'call-w', name: 'get_weather', arguments: '{"city":"Paris"}' }] },
    { content: 'It is 18°C and sunny in Paris.' },
  );
  const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: question }];
  const first = await openai.chat.completions.create({ model: 'weft-chat', messages, tools: [weather] }).withResponse();
  const taskId = first.response.headers.get('x-task-id')!;
  const choice = first.data.choices[0]!;
  expect(choice.finish_reason).toBe('tool_calls');
  expect(choice.message.content).toBe('Let me check.');
  expect(choice.message.tool_calls).toEqual([{ id: `${taskId}.call-w`, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }]);
  // The model was offered the client's tool beside Weft's own.
  const offered = (requestsAbout(question)[0]!.body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name);
  expect(offered).toEqual(expect.arrayContaining(['get_weather', 'calculator']));
  expect(await http.call('GET', `/api/v1/tasks/${taskId}`)).toMatchObject({ body: { status: 'TASK_STATUS_RUNNING' } });

  messages.push(choice.message, { role: 'tool', tool_call_id: choice.message.tool_calls![0]!.id, content: '18°C, sunny' });
  const second = await openai.chat.completions.create({ model: 'weft-chat', messages, tools: [weather] }).withResponse();
  expect(second.response.headers.get('x-task-id')).toBe(taskId);
  expect(second.data.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: 'It is 18°C and sunny in Paris.' } });
  // The model got the result as a tool result of its own call.
  const asked = requestsAbout(question)[1]!.body.messages as Array<{ role: string; tool_call_id?: string; content: string }>;
  expect(asked.at(-1)).toEqual({ role: 'tool', tool_call_id: 'call-w', content: '18°C, sunny' });
  expect(await http.waitForTask(taskId)).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'It is 18°C and sunny in Paris.' });
  const events = (await listTaskEvents(stack.pool, first.response.headers.get('x-workflow-id')!)).map((e) => `${e.type}${e.payload.client ? ':client' : ''}`);
  expect(events).toEqual(expect.arrayContaining(['TOOL_INVOKED:client', 'TOOL_OBSERVATION']));

  // The same result again is refused: the task waits for it no more.
  await expect(openai.chat.completions.create({ model: 'weft-chat', messages, tools: [weather] })).rejects.toMatchObject({ status: 409 });
});

it('streams the calls as OpenAI does, and the answer after the results', async () => {
  const question = `Weather in Oslo and Rome, streamed ${Date.now()}`;
  stack.model.on(
    question,
    {
      toolCalls: [
        { id: 'c-oslo', name: 'get_weather', arguments: '{"city":"Oslo"}' },
        { id: 'c-rome', name: 'get_weather', arguments: '{"city":"Rome"}' },
      ],
    },
    { content: 'Oslo is cold, Rome is warm.' },
  );
  const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: question }];
  const chunks = [];
  for await (const chunk of await openai.chat.completions.create({ model: 'weft-chat', messages, tools: [weather], stream: true })) chunks.push(chunk);
  const calls = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
  expect(calls.map((c) => [c.index, c.function?.name, c.function?.arguments])).toEqual([
    [0, 'get_weather', '{"city":"Oslo"}'],
    [1, 'get_weather', '{"city":"Rome"}'],
  ]);
  expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('tool_calls');
  messages.push(
    {
      role: 'assistant',
      content: null,
      tool_calls: calls.map((c) => ({ id: c.id!, type: 'function' as const, function: { name: c.function!.name!, arguments: c.function!.arguments! } })),
    },
    { role: 'tool', tool_call_id: calls[0]!.id!, content: '-3°C' },
    { role: 'tool', tool_call_id: calls[1]!.id!, content: '21°C' },
  );
  let text = '';
  for await (const chunk of await openai.chat.completions.create({ model: 'weft-chat', messages, tools: [weather], stream: true }))
    text += chunk.choices[0]?.delta.content ?? '';
  expect(text).toBe('Oslo is cold, Rome is warm.');
  const results = (requestsAbout(question)[1]!.body.messages as Array<{ role: string; tool_call_id?: string; content: string }>).filter(
    (m) => m.role === 'tool',
  );
  expect(results).toEqual([
    { role: 'tool', tool_call_id: 'c-oslo', content: '-3°C' },
    { role: 'tool', tool_call_id: 'c-rome', content: '21°C' },
  ]);
});

it("refuses results for another tenant's task as unknown", async () => {
  const question = `Private weather ${Date.now()}`;
  stack.model.on(question, { toolCalls: [{ id: 'c-p', name: 'get_weather', arguments: '{}' }] }, { content: 'done' });
  const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: question }];
  const first = await openai.chat.completions.create({ model: 'weft-chat', messages, tools: [weather] });
  const call = first.choices[0]!.message.tool_calls![0]!;
  const strangerKey = await stack.newApiKey({ tenantId: `stranger-${Date.now()}`, userId: 'eve', roles: [] });
  const stranger = new OpenAI({ baseURL: `http://127.0.0.1:${stack.api.httpPort}/v1`, apiKey: strangerKey, maxRetries: 0 });
  messages.push(first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: 'stolen' });
  await expect(stranger.chat.completions.create({ model: 'weft-chat', messages, tools: [weather] })).rejects.toMatchObject({ status: 404 });
  // A call the task did not make is refused by the task itself.
  const forged = [...messages.slice(0, -1), { role: 'tool' as const, tool_call_id: `${call.id.split('.')[0]}.c-other`, content: 'x' }];
  await expect(openai.chat.completions.create({ model: 'weft-chat', messages: forged, tools: [weather] })).rejects.toMatchObject({
    status: 409,
    message: expect.stringContaining('not waiting for the result of tool call c-other'),
  });
  // Its owner can still answer.
  expect((await openai.chat.completions.create({ model: 'weft-chat', messages, tools: [weather] })).choices[0]!.message.content).toBe('done');
});

it('ends the task TIMEOUT, saying which tool, when the client never sends the result', async () => {
  const question = `Weather nobody fetches ${Date.now()}`;
  stack.model.on(question, { toolCalls: [{ id: 'c-never', name: 'get_weather', arguments: '{}' }] });
  const first = await openai.chat.completions.create({ model: 'weft-chat', messages: [{ role: 'user', content: question }], tools: [weather] }).withResponse();
  const finished = await http.waitForTask(first.response.headers.get('x-task-id')!);
  expect(finished).toMatchObject({ status: 'TASK_STATUS_TIMEOUT', error_message: 'the client did not send the results of get_weather in time' });
});

itLeavesEveryTaskVerified(() => stack.everyTask());
