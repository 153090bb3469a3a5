import { countMessageTokens } from '../../core/llm/tokenizer';
import { planCompression, turnsOf } from '../../core/llm/history-compression';
import { RecordType } from '../../core/store';
import { buildMessagesFromRunLog, readRunLog, summaryMessage, type Message } from '../../core/transcript';
import { unaryCall } from '../../protos/clients';
import { submitTask, waitForFinish } from '../support/grpc';
import { startTestStack, type TestStack } from '../support/stack';
import { itLeavesEveryTaskVerified } from '../support/verification';

// A task in a long session: its transcript starts with the session's conversation, which passes the
// compression threshold, so the oldest turns are summarised by the history model (the small tier).

const keepTurns = 3;
let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ settings: { history: { compressAtTokens: 400, keepTurns } } });
});
afterAll(() => stack.stop());

const chatBodies = () => stack.model.requests.filter((r) => r.path === '/v1/chat/completions').map((r) => r.body);

it('summarises the older turns once past the threshold, keeps the newest turns byte for byte, and logs the summary', async () => {
  const sessions = stack.client('session');
  const { session_id } = await unaryCall(sessions, 'CreateSession', { max_history: 50 });
  const conversation: Array<[string, string]> = [];
  for (let turn = 1; turn <= 6; turn += 1) {
    conversation.push(['user', `Question ${turn}: tell me about planet number ${turn} in as much detail as you can.`]);
    conversation.push(['assistant', `Answer ${turn}: ${'Planet facts, orbital details and moons. '.repeat(6)}(end of answer ${turn}) ✓`]);
  }
  for (const [role, content] of conversation) await unaryCall(sessions, 'AddMessage', { session_id, message: { role, content } });

  stack.model.on((text) => text.startsWith('Summarise the conversation below'), { content: 'SUMMARY: planets 1 to 4 were described.' });
  stack.model.on('Which planet did we start with?', { content: 'We started with planet 1.' });
  const task = await submitTask(stack.orchestrator, { query: 'Which planet did we start with?', metadata: { session_id } });
  expect((await waitForFinish(stack.orchestrator, task.task_id)).status).toBe('TASK_STATUS_COMPLETED');

  // The summariser saw turns 1 to 4, whole; the agent's model saw the summary, then the kept turns exactly.
  const summaryRequest = chatBodies().find((b) => JSON.stringify(b.messages).includes('Summarise the conversation below'))!;
  const summarised = (summaryRequest.messages as Array<{ content: string }>)[0]!.content;
  expect(summarised).toContain('Question 1:');
  expect(summarised).toContain('(end of answer 4) ✓');
  expect(summarised).not.toContain('Question 5:');
  const answerRequest = chatBodies().find((b) => JSON.stringify(b.messages).includes('Which planet did we start with?'))!;
  const sent = (answerRequest.messages as Array<{ role: string; content: string }>).filter((m) => m.role !== 'system');
  expect(sent).toEqual([
    { role: 'user', content: 'Summary of the earlier conversation:\nSUMMARY: planets 1 to 4 were described.' },
    ...conversation.slice(8).map(([role, content]) => ({ role, content })),
    { role: 'user', content: 'Which planet did we start with?' },
  ]);

  // The run log holds the summary and what it replaced, and rebuilds exactly what the model saw.
  const log = await readRunLog(stack.store, task.workflow_id);
  const compaction = log.find((r) => r.type === RecordType.TranscriptCompacted)!;
  expect(JSON.parse(Buffer.from(compaction.payload).toString('utf8'))).toMatchObject({
    summary: 'SUMMARY: planets 1 to 4 were described.',
    replacedMessages: 8,
    keptTurns: keepTurns,
    model: 'scripted-small',
  });
  const rebuilt = await buildMessagesFromRunLog(stack.store, task.workflow_id);
  expect(rebuilt.map((m) => [m.role, m.parts])).toEqual([
    ...sent.map((m) => [m.role, [{ kind: 'text', text: m.content }]]),
    ['assistant', [{ kind: 'text', text: 'We started with planet 1.' }]],
  ]);
});

it('never splits a turn: tool calls and their results stay with the turn they belong to', () => {
  const say = (role: 'user' | 'assistant', text: string): Message => ({ role, parts: [{ kind: 'text', text }] });
  const messages: Message[] = [
    say('user', 'first question '.repeat(20)),
    { role: 'assistant', parts: [{ kind: 'tool_use', id: 'a', name: 'search', input: { q: 'x'.repeat(200) } }] },
    { role: 'user', parts: [{ kind: 'tool_result', toolUseId: 'a', content: 'y'.repeat(400) }] },
    say('assistant', 'first answer'),
    say('user', 'second question'),
    { role: 'assistant', parts: [{ kind: 'tool_use', id: 'b', name: 'search', input: { q: 'z' } }] },
    { role: 'user', parts: [{ kind: 'tool_result', toolUseId: 'b', content: 'w' }] },
    say('assistant', 'second answer'),
  ];
  expect(turnsOf(messages).map((turn) => turn.length)).toEqual([4, 4]);
  const count = (m: readonly Message[]) => countMessageTokens(m, 'o200k_base');
  const plan = planCompression(messages, { compressAtTokens: 50, keepTurns: 1 }, count)!;
  expect(plan.replaced).toEqual(messages.slice(0, 4));
  expect(plan.kept).toEqual(messages.slice(4));
  // Under the threshold, or with no turn older than the kept ones, nothing changes.
  expect(planCompression(messages, { compressAtTokens: count(messages), keepTurns: 1 }, count)).toBeUndefined();
  expect(planCompression(messages, { compressAtTokens: 50, keepTurns: 2 }, count)).toBeUndefined();
  // A transcript that is already a summary plus the kept turns is not summarised again.
  expect(planCompression([summaryMessage('earlier'), ...messages.slice(4)], { compressAtTokens: 1, keepTurns: 1 }, count)).toBeUndefined();
});

itLeavesEveryTaskVerified(() => stack.everyTask());
