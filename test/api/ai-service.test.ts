import { unaryCall, type ServiceClient } from '../../protos/clients';
import { startTestStack, TEST_MODEL, type TestStack } from '../support/stack';

let stack: TestStack;
let ai: ServiceClient<'ai'>;
beforeAll(async () => {
  stack = await startTestStack();
  ai = stack.client('ai');
});
afterAll(() => stack.stop());

const chatRequests = () => stack.model.requests.filter((r) => r.path === '/v1/chat/completions');

it('GenerateAnswer answers through the configured model for the default "venice-uncensored", with reasoning only when asked', async () => {
  stack.model.on('capital of France', { content: 'Paris.', reasoning: 'France is a country; its capital is Paris.' });
  const before = chatRequests().length;
  const plain = await unaryCall(ai, 'GenerateAnswer', { text: '@weftbot what is the capital of France?', bot_username: 'weftbot' });
  expect(plain).toMatchObject({ content: 'Paris.', error: '', reasoning_content: '' });
  expect(plain.duration_ms).toBeGreaterThan(0);
  const sent = chatRequests()[before]!.body;
  expect(sent.model).toBe(TEST_MODEL);
  // The @mention is how chat users address the bot; the model gets the question and who it is.
  expect(sent.messages).toEqual([
    { role: 'system', content: expect.stringContaining('weftbot') },
    { role: 'user', content: 'what is the capital of France?' },
  ]);

  const reasoned = await unaryCall(ai, 'GenerateAnswer', { text: 'capital of France?', enable_reasoning: true });
  expect(reasoned).toMatchObject({ content: 'Paris.', reasoning_content: 'France is a country; its capital is Paris.', error: '' });
});

it('GenerateAnswer reports failures in the error field, as the proto intends', async () => {
  expect(await unaryCall(ai, 'GenerateAnswer', { text: '   ' })).toMatchObject({ content: '', error: 'text is required' });
  stack.model.on('provider is down', { status: 500, content: 'upstream exploded' });
  const failed = await unaryCall(ai, 'GenerateAnswer', { text: 'provider is down?' });
  expect(failed.content).toBe('');
  expect(failed.error).toMatch(/no model could answer .*: 500 upstream exploded/);
  const unknown = await unaryCall(ai, 'GenerateAnswer', { text: 'which model?', model_name: 'no-such-model' });
  expect(unknown.error).toBe('model "no-such-model" is not in the model catalog');
});

it('HealthCheck reports serving and the version', async () => {
  expect(await unaryCall(ai, 'HealthCheck', {})).toEqual({ serving: true, version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
});

it('a session keeps the conversation: AskInSession answers with the history, then expires or closes', async () => {
  const created = await unaryCall(ai, 'CreateSession', { user_id: 'ann', bot_username: 'weftbot' });
  expect(created).toMatchObject({ status: 'active', error: '' });
  stack.model.on('my name is Ann', { content: 'Nice to meet you, Ann.' });
  stack.model.on('what is my name', { content: 'Your name is Ann.', reasoning: 'She said so earlier.' });

  const first = await unaryCall(ai, 'AskInSession', { session_id: created.session_id, text: 'my name is Ann' });
  expect(first).toMatchObject({ session_id: created.session_id, status: 'active', content: 'Nice to meet you, Ann.', error: '' });
  const before = chatRequests().length;
  const second = await unaryCall(ai, 'AskInSession', { session_id: created.session_id, text: '@weftbot what is my name?', enable_reasoning: true });
  expect(second).toMatchObject({ status: 'active', content: 'Your name is Ann.', reasoning_content: 'She said so earlier.' });
  expect(chatRequests()[before]!.body.messages).toEqual([
    { role: 'system', content: expect.stringContaining('weftbot') },
    { role: 'user', content: 'my name is Ann' },
    { role: 'assistant', content: 'Nice to meet you, Ann.' },
    { role: 'user', content: 'what is my name?' },
  ]);
  // The same history is a SessionService session.
  const session = await unaryCall(stack.client('session'), 'GetSession', { session_id: created.session_id, include_history: true });
  expect(session.session!.history.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);

  const short = await unaryCall(ai, 'CreateSession', { ttl_seconds: 1 });
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const expired = await unaryCall(ai, 'AskInSession', { session_id: short.session_id, text: 'still there?' });
  expect(expired).toMatchObject({ status: 'expired', content: '', error: expect.stringMatching(/expired/) });

  await unaryCall(stack.client('session'), 'DeleteSession', { session_id: created.session_id });
  const closed = await unaryCall(ai, 'AskInSession', { session_id: created.session_id, text: 'hello?' });
  expect(closed).toMatchObject({ status: 'closed', error: expect.stringMatching(/deleted/) });
});

it("refuses bad session input and another tenant's sessions in the error field", async () => {
  expect((await unaryCall(ai, 'CreateSession', { ttl_seconds: -1 })).error).toMatch(/ttl_seconds/);
  expect((await unaryCall(ai, 'AskInSession', { session_id: '', text: 'hi' })).error).toBe('session_id is required');
  const mine = await unaryCall(ai, 'CreateSession', {});
  const other = stack.client('ai', await stack.newApiKey({ tenantId: `other-${Date.now()}`, userId: 'eve', roles: [] }));
  const stolen = await unaryCall(other, 'AskInSession', { session_id: mine.session_id, text: 'hi' });
  expect(stolen).toMatchObject({ status: '', content: '', error: `session ${mine.session_id} not found` });
});
