import { continueCutOffText } from '../../core/tasks/run/model-step';
import { submitTask, waitForFinish } from '../support/grpc';
import { startTestStack, type TestStack } from '../support/stack';
import { itLeavesEveryTaskVerified } from '../support/verification';

// An answer the model's token limit cut off (finish_reason "length") is continued, and one still
// cut off after that is kept and said to be cut off: never passed off as a complete result.

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());

/** Every call of the task's conversation, the continuations too (their last user text is the request to go on). */
const aboutQuery = (query: string) => (_last: string, body: Record<string, unknown>) => JSON.stringify(body.messages).includes(query);
const requestsAbout = (query: string) => stack.model.requests.filter((r) => r.path === '/v1/chat/completions' && JSON.stringify(r.body).includes(query));
const eventsOf = async (workflowId: string) =>
  (
    await stack.pool.query<{ event_type: string; message: string }>('SELECT event_type, message FROM task_events WHERE workflow_id = $1 ORDER BY seq', [
      workflowId,
    ])
  ).rows;

it('continues an answer cut off at the token limit, and answers with the whole of it', async () => {
  const query = `write the long answer ${Date.now()}`;
  stack.model.on(aboutQuery(query), { content: 'The first half, ', finishReason: 'length' }, { content: 'and the second half.' });
  const submitted = await submitTask(stack.orchestrator, { query });
  expect(await waitForFinish(stack.orchestrator, submitted.task_id)).toMatchObject({
    status: 'TASK_STATUS_COMPLETED',
    result: 'The first half, and the second half.',
    error_message: '',
  });
  const [first, second] = requestsAbout(query);
  expect(JSON.stringify(first!.body.messages)).not.toContain(continueCutOffText);
  // The second call has the cut-off part as the assistant's, then the request to go on.
  const messages = second!.body.messages as Array<{ role: string; content: string }>;
  expect(messages.slice(-2)).toEqual([
    { role: 'assistant', content: 'The first half, ' },
    { role: 'user', content: continueCutOffText },
  ]);
});

it('says an answer is cut off when it still is after two continuations, and keeps what it has', async () => {
  const query = `never-ending answer ${Date.now()}`;
  stack.model.on(
    aboutQuery(query),
    { content: 'one, ', finishReason: 'length' },
    { content: 'two, ', finishReason: 'length' },
    { content: 'three, ', finishReason: 'length' },
  );
  const submitted = await submitTask(stack.orchestrator, { query });
  const status = await waitForFinish(stack.orchestrator, submitted.task_id);
  expect(status).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'one, two, three, ' });
  expect(status.error_message).toMatch(/cut off at the model's token limit/);
  expect(requestsAbout(query)).toHaveLength(3);
  const events = await eventsOf(submitted.workflow_id);
  expect(events.find((e) => e.event_type === 'ERROR_OCCURRED')?.message).toMatch(/cut off/);
  expect(events.at(-1)!.event_type).toBe('WORKFLOW_COMPLETED');
});

it("says which answers of a plan were cut off: an agent's after its continuations, and the synthesis's", async () => {
  const prefix = `cut plan ${Date.now()}`;
  stack.model.on(aboutQuery(`${prefix} list rivers`), { content: 'Rhine, ', finishReason: 'length' });
  stack.model.on(`${prefix} list lakes`, { content: 'Constance.' });
  stack.model.on((text) => text.includes('Combine these results') && text.includes(prefix), {
    content: 'Rivers and lakes: Rhine, Const',
    finishReason: 'length',
  });
  const submitted = await submitTask(stack.orchestrator, {
    query: `${prefix} water of Europe`,
    manual_decomposition: {
      agent_tasks: [
        { agent_id: 'rivers', description: `${prefix} list rivers` },
        { agent_id: 'lakes', description: `${prefix} list lakes` },
      ],
    },
  });
  const status = await waitForFinish(stack.orchestrator, submitted.task_id);
  expect(status).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'Rivers and lakes: Rhine, Const' });
  expect(status.error_message).toBe(
    "answers cut off at the model's token limit (finish_reason length): agent rivers (even after it was continued), the synthesis",
  );
  const events = await eventsOf(submitted.workflow_id);
  expect(events.find((e) => e.event_type === 'ERROR_OCCURRED')?.message).toBe(status.error_message);
});

itLeavesEveryTaskVerified(() => stack.everyTask());
