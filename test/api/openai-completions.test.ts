import OpenAI from 'openai';
import { ScriptedModelServer } from '../model-server/scripted-model-server';
import { shannonCaller, type ShannonCaller } from '../support/shannon-http';
import { routeToOneAgent, wasAnalysed } from '../support/routing';
import { startTestStack, type TestStack } from '../support/stack';
import { TEST_MODELS } from '../support/test-catalog';

// OpenAI's routes driven by the official `openai` client: each completion is a Weft task, in
// OpenAI's wire format (models, chat completions, completions, streaming with usage, errors).

let stack: TestStack;
let openai: OpenAI;
let http: ShannonCaller;
beforeAll(async () => {
  // A pace, so a stream arrives in pieces and a client can leave in the middle of one.
  stack = await startTestStack({ model: new ScriptedModelServer({ pace: { firstTokenMs: 0, tokensPerSecond: 50 } }) });
  openai = new OpenAI({ baseURL: `http://127.0.0.1:${stack.api.httpPort}/v1`, apiKey: stack.apiKey, maxRetries: 0 });
  http = shannonCaller(`http://127.0.0.1:${stack.api.httpPort}`, stack.apiKey);
});
afterAll(() => stack.stop());

const taskIdOf = (completionId: string) => completionId.replace(/^(chatcmpl|cmpl)-/, '');
const requestWith = (text: string) => stack.model.requests.filter((r) => JSON.stringify(r.body.messages).includes(text));

describe('models', () => {
  it('lists the catalog and finds a model by id or alias', async () => {
    const ids = [];
    for await (const model of openai.models.list()) ids.push(model.id);
    expect(ids).toEqual(expect.arrayContaining(['weft-chat', 'weft-quick', 'weft-research']));
    expect(await openai.models.retrieve('weft-chat')).toMatchObject({ id: 'weft-chat', object: 'model', owned_by: 'weft' });
    expect(await openai.models.retrieve('shannon-chat')).toMatchObject({ id: 'shannon-chat', object: 'model' });
    await expect(openai.models.retrieve('gpt-nothing')).rejects.toMatchObject({ status: 404, code: 'model_not_found', param: 'model' });
  });
});

describe('chat completions', () => {
  it('runs a task whose answer is the completion, with its usage', async () => {
    stack.model.on('Name a primary colour', { content: 'Blue is a primary colour.', usage: { prompt_tokens: 11, completion_tokens: 6 } });
    const completion = await openai.chat.completions.create({ model: 'weft-chat', messages: [{ role: 'user', content: 'Name a primary colour' }] });
    expect(completion).toMatchObject({
      object: 'chat.completion',
      model: 'weft-chat',
      choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'Blue is a primary colour.' } }],
    });
    expect(completion.usage).toEqual({ prompt_tokens: 11, completion_tokens: 6, total_tokens: 17 });
    const task = await http.call('GET', `/api/v1/tasks/${taskIdOf(completion.id)}`);
    expect(task.body).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'Blue is a primary colour.', query: 'Name a primary colour' });
  });

  it('gives the model the system prompt and the earlier turns, in order', async () => {
    stack.model.on('And the second planet?', { content: 'Venus.' });
    const messages = [
      { role: 'system' as const, content: 'Answer in one word.' },
      { role: 'user' as const, content: 'Which is the first planet?' },
      { role: 'assistant' as const, content: 'Mercury.' },
      { role: 'user' as const, content: 'And the second planet?' },
    ];
    const completion = await openai.chat.completions.create({ model: 'weft-quick', messages }).withResponse();
    expect(completion.data.choices[0]!.message.content).toBe('Venus.');
    expect(completion.response.headers.get('x-session-id')).toMatch(/^openai-/);
    const sent = requestWith('And the second planet?').at(-1)!.body.messages as Array<{ role: string; content: unknown }>;
    const texts = sent.map((m) => `${m.role}: ${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}`);
    expect(texts[0]).toMatch(/^system: [\s\S]*Answer in one word\./);
    expect(texts.slice(1).join('\n')).toMatch(/^user: .*Which is the first planet\?.*\nassistant: .*Mercury\..*\nuser: .*And the second planet\?/);
    // weft-quick offers no tools.
    expect(requestWith('And the second planet?').at(-1)!.body.tools).toBeUndefined();
  });

  it('streams the answer in chunks that add up to it, then the usage', async () => {
    const answer = 'Streaming works one piece at a time, as a model writes it out for the reader.';
    stack.model.on('Stream me an answer', { content: answer, usage: { prompt_tokens: 5, completion_tokens: 20 } });
    const stream = await openai.chat.completions.create({
      model: 'weft-chat',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'Stream me an answer' }],
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe(answer);
    expect(chunks.filter((c) => (c.choices[0]?.delta.content ?? '') !== '').length).toBeGreaterThan(1);
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('stop');
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 5, completion_tokens: 20, total_tokens: 25 } });
  });

  it('keeps running the task when the client leaves mid-stream', async () => {
    const answer = 'This answer is long enough that the client hangs up before its end. '.repeat(4);
    stack.model.on('Leave in the middle', { content: answer });
    const stream = await openai.chat.completions.create({ model: 'weft-chat', stream: true, messages: [{ role: 'user', content: 'Leave in the middle' }] });
    let id = '';
    for await (const chunk of stream) {
      id = chunk.id;
      if (chunk.choices[0]?.delta.content) break; // leaves the loop: the client aborts the request
    }
    const finished = await http.waitForTask(taskIdOf(id));
    expect(finished).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: answer });
  });
});

describe('completions', () => {
  it('answers a prompt as a task, streaming or not', async () => {
    stack.model.on('Complete this thought', { content: 'Thoughts complete.' });
    const completion = await openai.completions.create({ model: 'weft-chat', prompt: 'Complete this thought' });
    expect(completion).toMatchObject({ object: 'text_completion', choices: [{ text: 'Thoughts complete.', finish_reason: 'stop' }] });
    stack.model.on('Stream this thought', { content: 'Streamed thoughts.' });
    let text = '';
    for await (const chunk of await openai.completions.create({ model: 'weft-chat', prompt: 'Stream this thought', stream: true }))
      text += chunk.choices[0]?.text ?? '';
    expect(text).toBe('Streamed thoughts.');
  });
});

describe('bad input, as OpenAI answers it', () => {
  const user = [{ role: 'user' as const, content: 'hello' }];
  it.each([
    ['an unknown model', { model: 'gpt-nothing', messages: user }, 404, 'model'],
    ['no messages', { model: 'weft-chat', messages: [] }, 400, 'messages'],
    ['a last message from the assistant', { model: 'weft-chat', messages: [{ role: 'assistant', content: 'hi' }] }, 400, 'messages'],
    ['an unknown role', { model: 'weft-chat', messages: [{ role: 'robot', content: 'hi' }] }, 400, 'messages[0].role'],
    ['a content of the wrong type', { model: 'weft-chat', messages: [{ role: 'user', content: 7 }] }, 400, 'messages[0].content'],
    [
      'a tool choice Weft does not offer',
      { model: 'weft-chat', messages: user, tools: [{ type: 'function', function: { name: 'f' } }], tool_choice: 'required' },
      400,
      'tool_choice',
    ],
    [
      'a client tool named like a Weft tool',
      { model: 'weft-chat', messages: user, tools: [{ type: 'function', function: { name: 'calculator' } }] },
      400,
      'tools',
    ],
    ['client tools on a model that plans', { model: 'weft-research', messages: user, tools: [{ type: 'function', function: { name: 'f' } }] }, 400, 'tools'],
    [
      'a tool result that follows no tool call',
      { model: 'weft-chat', messages: [...user, { role: 'tool', tool_call_id: 'task-x.c1', content: '1' }] },
      400,
      'messages[1]',
    ],
    ['more than one choice', { model: 'weft-chat', messages: user, n: 2 }, 400, 'n'],
    ['an unknown argument', { model: 'weft-chat', messages: user, colour: 'red' }, 400, 'colour'],
    ['a temperature that is not a number', { model: 'weft-chat', messages: user, temperature: 'hot' }, 400, 'temperature'],
  ])('refuses %s with its parameter named', async (_what, body, status, param) => {
    await expect(openai.chat.completions.create(body as never)).rejects.toMatchObject({ status, param, type: 'invalid_request_error' });
  });

  it('refuses a caller without a key as OpenAI does', async () => {
    const stranger = new OpenAI({ baseURL: `http://127.0.0.1:${stack.api.httpPort}/v1`, apiKey: 'sk-not-a-weft-key', maxRetries: 0 });
    await expect(stranger.chat.completions.create({ model: 'weft-chat', messages: user })).rejects.toMatchObject({ status: 401, code: 'invalid_api_key' });
    await expect(stranger.models.list()).rejects.toMatchObject({ status: 401 });
  });
});

describe("Shannon's options on a chat completion, as Shannon's gateway reads them", () => {
  const unique = (text: string) => `${text} ${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
  const create = (body: Record<string, unknown>) => openai.chat.completions.create(body as never).withResponse();

  it("runs the task on the tier they name, over the model's own", async () => {
    const question = unique('A tiered question');
    stack.model.on(question, { content: 'Answered on the large tier.' });
    // weft-quick is a small-tier model; the option takes precedence, as in Shannon.
    const { data } = await create({ model: 'weft-quick', messages: [{ role: 'user', content: question }], shannon_options: { model_tier: 'large' } });
    expect(data.choices[0]!.message.content).toBe('Answered on the large tier.');
    expect(requestWith(question).at(-1)!.body.model).toBe(TEST_MODELS.LARGE);
    expect(await http.waitForTask(taskIdOf(data.id))).toMatchObject({ model_used: TEST_MODELS.LARGE });
  });

  it('plans research when they give a research strategy, or force research in the context', async () => {
    for (const options of [{ research_strategy: 'quick' }, { context: { force_research: true } }]) {
      const question = unique('Research the tides');
      routeToOneAgent(stack.model, question);
      stack.model.on(question, { content: 'The moon pulls them.' });
      const { data } = await create({ model: 'weft-chat', messages: [{ role: 'user', content: question }], shannon_options: options });
      expect(data.choices[0]!.message.content).toBe('The moon pulls them.');
      expect(wasAnalysed(stack.model, question)).toBe(true);
    }
  });

  it('runs a named agent on its input, with its tools only', async () => {
    const expression = `${Date.now() % 1000} * 7`;
    stack.model.on(`Work out ${expression} with the calculator`, { content: 'The result is known.' });
    const { data, response } = await create({
      model: 'weft-chat',
      messages: [{ role: 'user', content: 'Please be brief.' }],
      shannon_options: { agent: 'arithmetic', agent_input: { expression } },
    });
    expect(data.choices[0]!.message.content).toBe('The result is known.');
    const asked = requestWith(`Work out ${expression} with the calculator`).at(-1)!.body;
    expect(JSON.stringify(asked.messages)).toContain('Please be brief.');
    expect((asked.tools as Array<{ function: { name: string } }>).map((t) => t.function.name)).toEqual(['calculator']);
    const task = await http.call('GET', `/api/v1/tasks/${response.headers.get('x-task-id')}`);
    expect(task.body.query).toContain(`Work out ${expression} with the calculator`);
  });

  it('hands the context to the submission, which checks it as SubmitTask does', async () => {
    await expect(
      create({ model: 'weft-chat', messages: [{ role: 'user', content: 'hi' }], shannon_options: { context: { skill: 'no-such-skill' } } }),
    ).rejects.toMatchObject({ status: 404, message: expect.stringContaining('skill no-such-skill not found') });
  });

  const user = [{ role: 'user', content: 'hi' }];
  it.each([
    ['a workflow role, which Weft has not', { role: 'browser_use' }, 'shannon_options.role'],
    ['a role given in the context', { context: { role: 'browser_use' } }, 'shannon_options.context.role'],
    ['an option Shannon has not', { colour: 'red' }, 'shannon_options.colour'],
    ['an unknown research strategy', { research_strategy: 'thorough' }, 'shannon_options.research_strategy'],
    ['an unknown tier', { model_tier: 'huge' }, 'shannon_options.model_tier'],
    ['an agent Weft has not', { agent: 'serp-ads' }, 'shannon_options.agent'],
    ["an agent's input its schema refuses", { agent: 'arithmetic', agent_input: { sum: '1+1' } }, 'shannon_options.agent_input'],
    ['an agent input without its agent', { agent_input: { expression: '1+1' } }, 'shannon_options.agent_input'],
    ['an agent asked to research', { agent: 'arithmetic', agent_input: { expression: '1+1' }, research_strategy: 'deep' }, 'shannon_options.agent'],
  ])('refuses %s, naming it', async (_what, options, param) => {
    await expect(create({ model: 'weft-chat', messages: user, shannon_options: options })).rejects.toMatchObject({ status: 400, param });
  });

  it("refuses client tools on research, and the options beside a legacy completion's prompt", async () => {
    const tools = [{ type: 'function', function: { name: 'f' } }];
    await expect(create({ model: 'weft-chat', messages: user, tools, shannon_options: { research_strategy: 'deep' } })).rejects.toMatchObject({
      status: 400,
      param: 'tools',
    });
    await expect(openai.completions.create({ model: 'weft-chat', prompt: 'hi', shannon_options: {} } as never)).rejects.toMatchObject({
      status: 400,
      param: 'shannon_options',
    });
  });
});
