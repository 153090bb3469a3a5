import OpenAI from 'openai';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { listTaskEvents } from '../../core/events/event-log';
import { taskWorkflowIdOf } from '../../core/tasks/run/task-ref';
import { ScriptedModelServer } from '../model-server/scripted-model-server';
import { shannonCaller, type ShannonCaller } from '../support/shannon-http';
import { startTestStack, type TestStack } from '../support/stack';
import { itLeavesEveryTaskVerified } from '../support/verification';

// OpenAI's Responses API driven by the official `openai` client: each response is a durable Weft
// task whose stream is numbered from its event log, so it can be read whole, in the background,
// and resumed after any sequence number with nothing missing and nothing repeated.

let stack: TestStack;
let openai: OpenAI;
let http: ShannonCaller;
beforeAll(async () => {
  // A pace, so a stream arrives in pieces and a client can leave in the middle of one.
  stack = await startTestStack({ model: new ScriptedModelServer({ pace: { firstTokenMs: 0, tokensPerSecond: 60 } }) });
  openai = new OpenAI({ baseURL: `http://127.0.0.1:${stack.api.httpPort}/v1`, apiKey: stack.apiKey, maxRetries: 0 });
  http = shannonCaller(`http://127.0.0.1:${stack.api.httpPort}`, stack.apiKey);
});
afterAll(() => stack.stop());

const taskIdOf = (responseId: string) => responseId.replace(/^resp_/, '');
const deltasOf = (events: ResponseStreamEvent[]) => events.flatMap((e) => (e.type === 'response.output_text.delta' ? [e.delta] : [])).join('');

async function collect(stream: AsyncIterable<ResponseStreamEvent>, stopAfter?: (event: ResponseStreamEvent) => boolean) {
  const events: ResponseStreamEvent[] = [];
  for await (const event of stream) {
    events.push(event);
    if (stopAfter?.(event)) break; // leaves the loop: the client aborts the request
  }
  return events;
}

describe('a response', () => {
  it('runs a task whose answer is the response, with its usage', async () => {
    stack.model.on('Name a noble gas', { content: 'Neon is a noble gas.', usage: { prompt_tokens: 12, completion_tokens: 6 } });
    const response = await openai.responses.create({ model: 'weft-chat', input: 'Name a noble gas', metadata: { ticket: 'T-1' } });
    expect(response).toMatchObject({ object: 'response', status: 'completed', model: 'weft-chat', metadata: { ticket: 'T-1' }, error: null });
    expect(response.output_text).toBe('Neon is a noble gas.');
    expect(response.usage).toMatchObject({ input_tokens: 12, output_tokens: 6, total_tokens: 18 });
    const task = await http.call('GET', `/api/v1/tasks/${taskIdOf(response.id)}`);
    expect(task.body).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'Neon is a noble gas.', query: 'Name a noble gas' });
    // Read back later, it is the same response.
    expect(await openai.responses.retrieve(response.id)).toMatchObject({ id: response.id, status: 'completed', output_text: 'Neon is a noble gas.' });
  });

  it('streams OpenAI events numbered from 0 whose deltas add up to the answer', async () => {
    const answer = 'A streamed response arrives one piece after another, as the model writes it.';
    stack.model.on('Stream a response', { content: answer });
    const events = await collect(await openai.responses.create({ model: 'weft-chat', input: 'Stream a response', stream: true }));
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    expect(events.slice(0, 4).map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
    ]);
    expect(events.slice(-4).map((e) => e.type)).toEqual([
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.filter((e) => e.type === 'response.output_text.delta').length).toBeGreaterThan(1);
    expect(deltasOf(events)).toBe(answer);
    const completed = events.at(-1) as Extract<ResponseStreamEvent, { type: 'response.completed' }>;
    expect(completed.response.output).toEqual([
      expect.objectContaining({
        type: 'message',
        role: 'assistant',
        status: 'completed',
        content: [expect.objectContaining({ type: 'output_text', text: answer })],
      }),
    ]);
  });

  it('continues the conversation of the response it follows', async () => {
    stack.model.on('Which is the largest planet?', { content: 'Jupiter.' });
    stack.model.on('And its largest moon?', { content: 'Ganymede.' });
    const first = await openai.responses.create({ model: 'weft-quick', instructions: 'Answer in one word.', input: 'Which is the largest planet?' });
    const second = await openai.responses.create({ model: 'weft-quick', input: 'And its largest moon?', previous_response_id: first.id });
    expect(second).toMatchObject({ status: 'completed', output_text: 'Ganymede.', previous_response_id: first.id });
    const sent = stack.model.requests.filter((r) => JSON.stringify(r.body.messages).includes('And its largest moon?')).at(-1)!;
    const transcript = JSON.stringify(sent.body.messages);
    expect(transcript.indexOf('Which is the largest planet?')).toBeLessThan(transcript.indexOf('Jupiter.'));
    expect(transcript.indexOf('Jupiter.')).toBeLessThan(transcript.indexOf('And its largest moon?'));
  });
});

describe('in the background', () => {
  it('answers at once, and the task finishes whether anyone listens or not', async () => {
    const answer = 'Background work goes on without anybody waiting for it to finish. '.repeat(3);
    stack.model.on('Work in the background', { content: answer });
    const queued = await openai.responses.create({ model: 'weft-chat', input: 'Work in the background', background: true });
    expect(queued).toMatchObject({ background: true, status: 'in_progress' });
    await http.waitForTask(taskIdOf(queued.id));
    expect(await openai.responses.retrieve(queued.id)).toMatchObject({ status: 'completed', output_text: answer });
  });

  it('resumes a stream after the last event the client saw, with no gap and no duplicate', async () => {
    const answer = 'This answer is long enough that the client hangs up well before its end, then comes back. '.repeat(3);
    stack.model.on('Resume my stream', { content: answer });
    const stream = await openai.responses.create({ model: 'weft-chat', input: 'Resume my stream', background: true, stream: true });
    const before = await collect(stream, (e) => e.type === 'response.output_text.delta' && e.sequence_number >= 6);
    const id = (before[0] as Extract<ResponseStreamEvent, { type: 'response.created' }>).response.id;
    const lastSeen = before.at(-1)!.sequence_number;
    const after = await collect(await openai.responses.retrieve(id, { stream: true, starting_after: lastSeen }));
    const joined = [...before, ...after];
    expect(joined.map((e) => e.sequence_number)).toEqual(joined.map((_, i) => i));
    expect(deltasOf(joined)).toBe(answer);
    expect(joined.at(-1)!.type).toBe('response.completed');
    // The stream read again from the start is the same stream, event for event.
    expect(await collect(await openai.responses.retrieve(id, { stream: true }))).toEqual(joined);
    // The task kept its streamed text in its log: that is what any API process numbers the stream from.
    const recorded = (await listTaskEvents(stack.pool, taskWorkflowIdOf(taskIdOf(id)))).filter((e) => e.type === 'LLM_PARTIAL');
    expect(recorded.map((e) => e.message).join('')).toBe(answer);
  });

  it('is cancelled through the API, and says so', async () => {
    stack.model.on('Take your time', { content: 'Slowly, slowly. '.repeat(30) });
    const stream = await openai.responses.create({ model: 'weft-chat', input: 'Take your time', background: true, stream: true });
    const started = await collect(stream, (e) => e.type === 'response.output_text.delta');
    const id = (started[0] as Extract<ResponseStreamEvent, { type: 'response.created' }>).response.id;
    await openai.responses.cancel(id);
    expect(await http.waitForTask(taskIdOf(id))).toMatchObject({ status: 'TASK_STATUS_CANCELLED' });
    const cancelled = await openai.responses.retrieve(id);
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.output[0]).toMatchObject({ type: 'message', status: 'incomplete' });
    const replayed = await collect(await openai.responses.retrieve(id, { stream: true, starting_after: started.at(-1)!.sequence_number }));
    expect(replayed.at(-1)).toMatchObject({ type: 'response.cancelled', response: { status: 'cancelled' } });
  });
});

describe('bad input, as OpenAI answers it', () => {
  it.each([
    ['an unknown model', { model: 'gpt-nothing', input: 'hi' }, 404, 'model'],
    ['no input', { model: 'weft-chat' }, 400, 'input'],
    ['an input ending with the assistant', { model: 'weft-chat', input: [{ role: 'assistant', content: 'hi' }] }, 400, 'input'],
    ['an input item of another type', { model: 'weft-chat', input: [{ type: 'reasoning', summary: [] }] }, 400, 'input[0].type'],
    [
      'a function call output that names no call of Weft',
      { model: 'weft-chat', input: [{ type: 'function_call_output', call_id: 'c', output: '1' }] },
      400,
      'input[0].call_id',
    ],
    [
      'function call outputs beside a message',
      {
        model: 'weft-chat',
        input: [
          { type: 'function_call_output', call_id: 'task-1.c', output: '1' },
          { role: 'user', content: 'hi' },
        ],
      },
      400,
      'input[1].type',
    ],
    ['a tool that is not a function', { model: 'weft-chat', input: 'hi', tools: [{ type: 'file_search', vector_store_ids: [] }] }, 400, 'tools[0].type'],
    ['store: false', { model: 'weft-chat', input: 'hi', store: false }, 400, 'store'],
    ['metadata that is not strings', { model: 'weft-chat', input: 'hi', metadata: { n: 1 } }, 400, 'metadata'],
    ['an unknown argument', { model: 'weft-chat', input: 'hi', colour: 'red' }, 400, 'colour'],
    ['a malformed previous_response_id', { model: 'weft-chat', input: 'hi', previous_response_id: 'chatcmpl-1' }, 400, 'previous_response_id'],
    ['an unknown previous response', { model: 'weft-chat', input: 'hi', previous_response_id: 'resp_task-nothing' }, 404, 'previous_response_id'],
  ])('refuses %s with its parameter named', async (_what, body, status, param) => {
    await expect(openai.responses.create(body as never)).rejects.toMatchObject({ status, param });
  });

  it("keeps another tenant's responses out of reach", async () => {
    stack.model.on('A private answer', { content: 'Only mine.' });
    const mine = await openai.responses.create({ model: 'weft-chat', input: 'A private answer' });
    const strangerKey = await stack.newApiKey({ tenantId: `stranger-${Date.now()}`, userId: 'eve', roles: [] });
    const stranger = new OpenAI({ baseURL: `http://127.0.0.1:${stack.api.httpPort}/v1`, apiKey: strangerKey, maxRetries: 0 });
    await expect(stranger.responses.retrieve(mine.id)).rejects.toMatchObject({ status: 404 });
    await expect(stranger.responses.cancel(mine.id)).rejects.toMatchObject({ status: 404 });
    await expect(stranger.responses.create({ model: 'weft-chat', input: 'hi', previous_response_id: mine.id })).rejects.toMatchObject({ status: 404 });
    await expect(openai.responses.retrieve(mine.id, { stream: true, starting_after: -1 } as never)).rejects.toMatchObject({
      status: 400,
      param: 'starting_after',
    });
  });
});

describe("a response whose model calls the client's own tools", () => {
  const weather = {
    type: 'function' as const,
    name: 'get_weather',
    description: 'The weather in a city now',
    parameters: { type: 'object', properties: { city: { type: 'string' } } },
    strict: false,
  };

  it('ends with the function calls while the task waits; the outputs continue the same task in the next response', async () => {
    const question = `What is the weather in Paris? ${Date.now()}`;
    stack.model.on(
      question,
      { toolCalls: [{ id: 'call-w', name: 'get_weather', arguments: '{"city":"Paris"}' }] },
      { content: 'It is 18°C and sunny in Paris.' },
    );
    const first = await openai.responses.create({ model: 'weft-chat', input: question, tools: [weather] });
    const taskId = taskIdOf(first.id);
    expect(first).toMatchObject({ status: 'completed', output_text: '' });
    expect(first.output).toEqual([
      { id: `fc_${taskId}_0`, type: 'function_call', status: 'completed', call_id: `${taskId}.call-w`, name: 'get_weather', arguments: '{"city":"Paris"}' },
    ]);
    // The model was offered the client's tool beside Weft's own, and the task waits, durably.
    const offered = (stack.model.requests.filter((r) => JSON.stringify(r.body).includes(question))[0]!.body.tools as Array<{ function: { name: string } }>).map(
      (t) => t.function.name,
    );
    expect(offered).toEqual(expect.arrayContaining(['get_weather', 'calculator']));
    expect(await http.call('GET', `/api/v1/tasks/${taskId}`)).toMatchObject({ body: { status: 'TASK_STATUS_RUNNING' } });

    const second = await openai.responses.create({
      model: 'weft-chat',
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: `${taskId}.call-w`, output: '18°C, sunny' }],
      tools: [weather],
    });
    expect(second).toMatchObject({ status: 'completed', previous_response_id: first.id, output_text: 'It is 18°C and sunny in Paris.' });
    expect(second.id).not.toBe(first.id);
    expect(second.output.map((item) => item.id)).not.toContain(`fc_${taskId}_0`);
    const asked = stack.model.requests.filter((r) => JSON.stringify(r.body).includes(question))[1]!.body.messages as Array<{ role: string; content: string }>;
    expect(asked.at(-1)).toMatchObject({ role: 'tool', content: '18°C, sunny' });
    expect(await http.waitForTask(taskId)).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'It is 18°C and sunny in Paris.' });

    // Each response reads its own part of the task's log, then and later.
    expect(await openai.responses.retrieve(first.id)).toMatchObject({ status: 'completed', output: first.output });
    expect((await openai.responses.retrieve(second.id)).output_text).toBe('It is 18°C and sunny in Paris.');
    // The same outputs again are refused: the task waits for them no more.
    await expect(
      openai.responses.create({
        model: 'weft-chat',
        previous_response_id: first.id,
        input: [{ type: 'function_call_output', call_id: `${taskId}.call-w`, output: '18°C, sunny' }],
      }),
    ).rejects.toMatchObject({ status: 409 });
    const { rows } = await stack.pool.query('SELECT response_id FROM openai_responses WHERE task_id = $1 ORDER BY after_seq', [taskId]);
    expect(rows.map((row: { response_id: string }) => row.response_id)).toEqual([first.id, second.id]);
  });

  it('goes on from the whole conversation a client keeps itself, without previous_response_id, naming any item the task does not hold', async () => {
    const question = `Weather kept by the client ${Date.now()}`;
    stack.model.on(
      question,
      { content: 'Let me look.', toolCalls: [{ id: 'call-k', name: 'get_weather', arguments: '{"city":"Lima"}' }] },
      { content: 'Lima is mild.' },
    );
    const first = await openai.responses.create({ model: 'weft-chat', input: question, tools: [weather] });
    const taskId = taskIdOf(first.id);
    const call = first.output.find((item) => item.type === 'function_call')!;
    expect(call).toMatchObject({ call_id: `${taskId}.call-k`, name: 'get_weather' });
    const output = { type: 'function_call_output' as const, call_id: `${taskId}.call-k`, output: '19°C' };
    const create = (input: unknown[]) => openai.responses.create({ model: 'weft-chat', input: input as never, tools: [weather] });

    // A conversation that is not the task's is refused, naming the first item that differs.
    await expect(create([{ role: 'user', content: 'Another question' }, ...first.output, output])).rejects.toMatchObject({
      status: 400,
      param: 'input[0].content',
    });
    const at = first.output.indexOf(call) + 1;
    await expect(
      create([{ role: 'user', content: question }, ...first.output.map((item) => (item === call ? { ...call, arguments: '{"city":"Quito"}' } : item)), output]),
    ).rejects.toMatchObject({
      status: 400,
      param: `input[${at}].arguments`,
    });
    await expect(
      create([{ role: 'user', content: question }, ...first.output.map((item) => (item === call ? { ...call, name: 'get_time' } : item)), output]),
    ).rejects.toMatchObject({
      status: 400,
      param: `input[${at}].name`,
    });
    expect(await http.call('GET', `/api/v1/tasks/${taskId}`)).toMatchObject({ body: { status: 'TASK_STATUS_RUNNING' } });

    const conversation = [{ role: 'user', content: question }, ...first.output, output];
    const second = await create(conversation);
    expect(second).toMatchObject({ status: 'completed', previous_response_id: null, output_text: 'Lima is mild.' });
    expect(taskIdOf(second.id).startsWith(`${taskId}.`)).toBe(true);
    const asked = stack.model.requests.filter((r) => JSON.stringify(r.body).includes(question))[1]!.body.messages as Array<{ role: string; content: string }>;
    expect(asked.at(-1)).toMatchObject({ role: 'tool', content: '19°C' });
    expect(await http.waitForTask(taskId)).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'Lima is mild.' });

    // The next turn sends the conversation whole, calls and outputs included: a new task that has it as history.
    const next = `And tomorrow in Lima? ${Date.now()}`;
    stack.model.on(next, { content: 'Mild again.' });
    const third = await create([...conversation, ...second.output, { role: 'user', content: next }]);
    expect(third.output_text).toBe('Mild again.');
    const history = JSON.stringify(stack.model.requests.filter((r) => JSON.stringify(r.body).includes(next)).at(-1)!.body.messages);
    expect(history).toContain('get_weather');
    expect(history).toContain('19°C');
  });

  it("streams the calls as OpenAI does, ending the response's stream", async () => {
    const question = `Weather in Oslo and Rome, streamed ${Date.now()}`;
    stack.model.on(question, {
      toolCalls: [
        { id: 'c-oslo', name: 'get_weather', arguments: '{"city":"Oslo"}' },
        { id: 'c-rome', name: 'get_weather', arguments: '{"city":"Rome"}' },
      ],
    });
    const events = await collect(await openai.responses.create({ model: 'weft-chat', input: question, tools: [weather], stream: true }));
    const done = events.flatMap((e) => (e.type === 'response.function_call_arguments.done' ? [e.arguments] : []));
    expect(done).toEqual(['{"city":"Oslo"}', '{"city":"Rome"}']);
    expect(events.at(-1)).toMatchObject({ type: 'response.completed', response: { status: 'completed' } });
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_e, i) => i));
  });

  it('refuses tools it cannot offer, and outputs without the response they continue', async () => {
    await expect(openai.responses.create({ model: 'weft-chat', input: 'hi', tools: [{ type: 'web_search' } as never] })).rejects.toMatchObject({
      status: 400,
      param: 'tools[0].type',
    });
    await expect(
      openai.responses.create({ model: 'weft-chat', input: [{ type: 'function_call_output', call_id: 'task-x.call-1', output: 'x' }] }),
    ).rejects.toMatchObject({ status: 400, param: 'previous_response_id' });
    await expect(openai.responses.create({ model: 'weft-chat', input: 'hi', tools: [{ ...weather, name: 'calculator' }] })).rejects.toMatchObject({
      status: 400,
      param: 'tools',
    });
  });
});

itLeavesEveryTaskVerified(() => stack.everyTask());
