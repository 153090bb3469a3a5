import { randomUUID } from 'node:crypto';
import { status } from '@grpc/grpc-js';
import { unaryCall } from '../../protos/clients';
import { jsonToStruct } from '../../api/grpc/struct';
import { startTestStack, type TestStack } from '../support/stack';
import { shannonCaller, type ShannonCaller } from '../support/shannon-http';
import { until } from '../support/orchestration';
import { itLeavesEveryTaskVerified } from '../support/verification';
import { weft } from '../support/weft-cli';

// A COMPLEX task's plan reviewed in rounds before it runs (Shannon's review_plan): each round of
// feedback has the planner revise the plan (a model step), the rounds are in the run log and the
// stream, and the plan that runs is the one the person approved.

let stack: TestStack;
let http: ShannonCaller;
beforeAll(async () => {
  stack = await startTestStack();
  http = shannonCaller(`http://127.0.0.1:${stack.api.httpPort}`, stack.apiKey);
});
afterAll(() => stack.stop());

const planOf = (...agents: Array<{ id: string; description: string }>) =>
  JSON.stringify({ agents: agents.map((agent) => ({ ...agent, dependencies: [], tools: [], tier: 'SMALL' })) });

const eventCount = async (workflowId: string, type: string) =>
  (await stack.pool.query('SELECT count(*)::int AS n FROM task_events WHERE workflow_id = $1 AND event_type = $2', [workflowId, type])).rows[0].n as number;

/** The review of a task once its plan waits for a person. */
const reviewOnceWaiting = (taskId: string) =>
  until(async () => {
    const review = await http.call('GET', `/api/v1/tasks/${taskId}/review`);
    return review.status === 200 && review.body.status === 'reviewing' ? review : undefined;
  });

it('revises the plan with each round of feedback, and runs the plan the person approved', async () => {
  const tag = randomUUID();
  const query = `research the harbour ${tag}`;
  stack.model.on((text) => text.includes('Split the task below') && text.includes(query), { content: planOf({ id: 'survey', description: `survey ${tag}` }) });
  stack.model.on(`Feedback: add a critic ${tag}`, {
    content: planOf({ id: 'survey', description: `survey ${tag}` }, { id: 'critic', description: `critic ${tag}` }),
  });
  stack.model.on(`Feedback: only the critic ${tag}`, { content: planOf({ id: 'critic', description: `critic alone ${tag}` }) });
  stack.model.on(`critic alone ${tag}`, { content: 'the critic found nothing amiss' });

  const { body } = await http.call('POST', '/api/v1/tasks', { query, context: { review_plan: 'manual' } });
  const taskId = body.task_id as string;
  const first = await reviewOnceWaiting(taskId);
  expect(first.headers.get('etag')).toBe('1');
  expect(JSON.parse(first.body.current_plan as string).agents.map((a: { id: string }) => a.id)).toEqual(['survey']);

  const revised = await http.call('POST', `/api/v1/tasks/${taskId}/review`, { action: 'feedback', message: `add a critic ${tag}` }, { 'if-match': '1' });
  expect(revised).toMatchObject({ status: 200, body: { status: 'reviewing', plan: { version: 2, round: 1 } } });
  expect(JSON.parse(revised.body.plan.message as string).agents.map((a: { id: string }) => a.id)).toEqual(['survey', 'critic']);
  // Feedback on the plan as it was before: refused, the plan having changed since.
  const stale = await http.call('POST', `/api/v1/tasks/${taskId}/review`, { action: 'feedback', message: 'too late' }, { 'if-match': '1' });
  expect(stale).toMatchObject({ status: 409, body: { error: expect.stringMatching(/changed since version 1/) } });
  await http.call('POST', `/api/v1/tasks/${taskId}/review`, { action: 'feedback', message: `only the critic ${tag}` }, { 'if-match': '2' });

  const review = await http.call('GET', `/api/v1/tasks/${taskId}/review`);
  expect(review.headers.get('etag')).toBe('3');
  expect(review.body).toMatchObject({ status: 'reviewing', round: 2, version: 3, max_rounds: 10 });
  expect(review.body.rounds.map((r: { role: string; round: number }) => `${r.role} ${r.round}`)).toEqual([
    'assistant 0',
    'user 1',
    'assistant 1',
    'user 2',
    'assistant 2',
  ]);
  expect(review.body.rounds[1]).toMatchObject({ message: `add a critic ${tag}`, by: `${stack.principal.tenantId}/${stack.principal.userId}` });

  expect(await http.call('POST', `/api/v1/tasks/${taskId}/review`, { action: 'approve' }, { 'if-match': '3' })).toMatchObject({
    status: 200,
    body: { status: 'approved' },
  });
  expect(await http.waitForTask(taskId)).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'the critic found nothing amiss' });

  // The approved plan ran, and only it: no agent of an earlier version was asked anything.
  const asked = stack.model.requests.map((r) => JSON.stringify(r.body));
  expect(asked.filter((text) => text.includes(`critic alone ${tag}`) && text.includes('Your part'))).toHaveLength(1);
  expect(asked.filter((text) => text.includes(`survey ${tag}`) && text.includes('Your part'))).toHaveLength(0);
  // Each revision was one model step, asked with its feedback once.
  expect(asked.filter((text) => text.includes(`Feedback: add a critic ${tag}`))).toHaveLength(1);
  expect(await eventCount(taskId, 'RESEARCH_PLAN_UPDATED')).toBe(3);
  expect(await eventCount(taskId, 'REVIEW_USER_FEEDBACK')).toBe(2);
  // Read back from the run log once the task has ended.
  expect((await http.call('GET', `/api/v1/tasks/${taskId}/review`)).body).toMatchObject({ status: 'approved', version: 3, round: 2, max_rounds: 10 });
});

it('is rejected by an Update sent by name, shown with weft review, and refuses bad reviews with clear errors', async () => {
  const tag = randomUUID();
  const query = `plan the move ${tag}`;
  stack.model.on((text) => text.includes('Split the task below') && text.includes(query), { content: planOf({ id: 'movers', description: `movers ${tag}` }) });
  const grpc = await stack.clientFor(stack.principal);
  const submitted = await unaryCall(grpc, 'SubmitTask', { query, context: jsonToStruct({ require_review: true }) });
  await reviewOnceWaiting(submitted.task_id);

  const post = (body: unknown, caller = http) => caller.call('POST', `/api/v1/tasks/${submitted.task_id}/review`, body);
  expect(await post({ action: 'feedback' })).toMatchObject({ status: 400, body: { error: 'feedback needs a message' } });
  expect(await post({ action: 'maybe' })).toMatchObject({ status: 400 });
  expect(await post({ action: 'approve', plan: 'mine' })).toMatchObject({ status: 400, body: { error: 'unknown field plan' } });
  const stranger = shannonCaller(http.base, await stack.newApiKey({ tenantId: 'elsewhere', userId: 'eve', roles: [] }));
  expect((await post({ action: 'approve' }, stranger)).status).toBe(404);
  expect((await stranger.call('GET', `/api/v1/tasks/${submitted.task_id}/review`)).status).toBe(404);
  stack.model.on(`plain task ${tag}`, { content: 'no plan here' });
  const plain = await http.call('POST', '/api/v1/tasks', { query: `plain task ${tag}` });
  await http.waitForTask(plain.body.task_id as string);
  expect((await http.call('GET', `/api/v1/tasks/${plain.body.task_id}/review`)).status).toBe(404);
  await expect(unaryCall(grpc, 'ReviewTask', { task_id: submitted.task_id, action: 'feedback', message: 'x', version: 7 })).rejects.toMatchObject({
    code: status.FAILED_PRECONDITION,
  });
  // What Temporal's own tools send: the query and the Update by name, as any Temporal client does.
  const workflow = stack.temporal.workflow.getHandle(submitted.workflow_id);
  expect(await workflow.query('planReview')).toMatchObject({ status: 'reviewing', version: 1 });
  await workflow.executeUpdate('reviewPlan', { args: [{ action: 'reject', message: 'not this way', by: 'ops' }] });
  expect(await http.waitForTask(submitted.task_id)).toMatchObject({ status: 'TASK_STATUS_CANCELLED', error_message: 'rejected: not this way' });

  const env = { WEFT_API_ADDRESS: `127.0.0.1:${stack.api.port}`, WEFT_API_KEY: stack.apiKey };
  expect((await weft(['review', submitted.task_id], env)).stdout).toMatch(/^rejected, version 1, round 0/);
});

itLeavesEveryTaskVerified(() => stack.everyTask());
