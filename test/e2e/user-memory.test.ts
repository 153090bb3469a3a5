import { memoryInstruction } from '../../workflows/memory-note';
import { shannonCaller, type ShannonCaller } from '../support/shannon-http';
import { startTestStack, type TestStack } from '../support/stack';

// WEFT_USER_MEMORY=on: a completed task's long answer leaves a note in its user's memory (the files
// Shannon's /api/v1/memory/files serves), from one more small-tier model step; a model that answers
// in prose, or an answer too short to remember, leaves none, and the task completes either way.

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ settings: { rememberResults: true } });
});
afterAll(() => stack.stop());

const longAnswer = `The Rhine rises in the Swiss Alps and flows 1,230 km to the North Sea. ${'It passes Basel, Strasbourg, Cologne and Rotterdam on the way. '.repeat(8)}`;
const memoryRequests = (query: string) =>
  stack.model.requests.filter((r) => JSON.stringify(r.body.messages).includes(memoryInstruction) && JSON.stringify(r.body.messages).includes(query));

/** A caller of its own, so each test sees only its user's memory. */
async function callerFor(userId: string): Promise<ShannonCaller> {
  return shannonCaller(`http://127.0.0.1:${stack.api.httpPort}`, await stack.newApiKey({ tenantId: stack.principal.tenantId, userId, roles: [] }));
}

async function run(http: ShannonCaller, query: string) {
  const { body } = await http.call('POST', '/api/v1/tasks', { query });
  return { taskId: body.task_id as string, finished: await http.waitForTask(body.task_id) };
}

it("keeps a note of a long answer in the user's memory, recorded as the task's memory agent", async () => {
  const http = await callerFor('rhine-reader');
  const query = 'Tell me about the river Rhine';
  const note = {
    worth_remembering: true,
    title: 'The Rhine',
    summary: 'The Rhine runs 1,230 km from the Alps to the North Sea.',
    content: 'Source: the Swiss Alps. Mouth: the North Sea near Rotterdam. Cities on its banks: Basel, Strasbourg, Cologne and Rotterdam.',
    suggested_path: 'geography/rhine.md',
  };
  // The memory prompt quotes the query, so its rule comes first.
  stack.model.on((text) => text.startsWith(memoryInstruction) && text.includes(query), {
    content: `Here is the note:\n\`\`\`json\n${JSON.stringify(note)}\n\`\`\``,
  });
  stack.model.on(query, { content: longAnswer });
  const { taskId, finished } = await run(http, query);
  expect(finished).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: longAnswer });

  expect(memoryRequests(query)).toHaveLength(1);
  expect((await http.call('GET', '/api/v1/memory/files')).body.files).toEqual([expect.objectContaining({ path: 'geography', is_dir: true })]);
  const file = await http.call('GET', '/api/v1/memory/files/geography/rhine.md');
  expect(file.body.content).toBe(`# The Rhine\n\n${note.summary}\n\n${note.content}\n`);
  const events = (await http.call('GET', `/api/v1/tasks/${taskId}/events?limit=200`)).body.events as Array<{ type: string; agent_id: string }>;
  expect(events.filter((e) => e.agent_id === 'memory').map((e) => e.type)).toEqual(expect.arrayContaining(['TOOL_INVOKED', 'TOOL_OBSERVATION']));
  // The answer is the task's; the note's step is counted in its usage.
  expect(finished.usage.total_tokens).toBeGreaterThan(0);
});

it('keeps nothing when the model answers in prose or suggests a path outside the memory folder, and the task still completes', async () => {
  const http = await callerFor('prose-reader');
  const prose = 'Tell me about the river Danube';
  stack.model.on((text) => text.startsWith(memoryInstruction) && text.includes(prose), { content: 'I think this is worth remembering: the Danube is long.' });
  stack.model.on(prose, { content: longAnswer.replace(/Rhine/g, 'Danube') });
  expect((await run(http, prose)).finished).toMatchObject({ status: 'TASK_STATUS_COMPLETED' });

  const escape = 'Tell me about the river Elbe';
  const note = {
    worth_remembering: true,
    title: 'x',
    summary: 'A summary that is long enough to keep.',
    content: 'c'.repeat(120),
    suggested_path: '../../other-user/elbe.md',
  };
  stack.model.on((text) => text.startsWith(memoryInstruction) && text.includes(escape), { content: JSON.stringify(note) });
  stack.model.on(escape, { content: longAnswer.replace(/Rhine/g, 'Elbe') });
  expect((await run(http, escape)).finished).toMatchObject({ status: 'TASK_STATUS_COMPLETED' });

  expect(memoryRequests(prose)).toHaveLength(1);
  expect(memoryRequests(escape)).toHaveLength(1);
  expect((await http.call('GET', '/api/v1/memory/files')).body.files).toEqual([]);
});

it('asks nothing about an answer too short to remember', async () => {
  const http = await callerFor('short-reader');
  const query = 'How long is the Thames, in one number?';
  stack.model.on(query, { content: '346 km.' });
  expect((await run(http, query)).finished).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: '346 km.' });
  expect(memoryRequests(query)).toHaveLength(0);
});
