import { status } from '@grpc/grpc-js';
import { unaryCall } from '../../protos/clients';
import { pausedKey } from '../../workflows/search-attributes';
import { startTestStack, type TestStack } from '../support/stack';
import { shannonCaller, type ShannonCaller } from '../support/shannon-http';
import { weft } from '../support/weft-cli';

// Pausing a running task holds it at its next step boundary: the step under way finishes, no other
// starts until it is resumed, and resume continues where it stopped. Shannon's SDK calls these routes.

let stack: TestStack;
let http: ShannonCaller;
beforeAll(async () => {
  stack = await startTestStack();
  http = shannonCaller(`http://127.0.0.1:${stack.api.httpPort}`, stack.apiKey);
});
afterAll(() => stack.stop());

const unique = (text: string) => `${text} #${Math.random().toString(36).slice(2, 8)}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const stepsOf = (query: string) => stack.model.requests.filter((r) => JSON.stringify(r.body.messages).includes(query)).length;

it('holds a paused task after the step under way, reports it, and resumes it where it stopped', async () => {
  const query = unique('long calculation');
  stack.model.on(query, { toolCalls: [{ id: 'c1', name: 'calculator', arguments: '{"expression":"2+2"}' }], delayMs: 800 }, { content: 'the answer is 4' });
  const { body } = await http.call('POST', '/api/v1/tasks', { query });
  const taskId = body.task_id as string;
  while (stepsOf(query) === 0) await sleep(20);

  const paused = await http.call('POST', `/api/v1/tasks/${taskId}/pause`, { reason: 'checking the numbers' });
  expect(paused).toMatchObject({ status: 202, body: { success: true, is_paused: true, pause_reason: 'checking the numbers' } });
  expect((await http.call('GET', `/api/v1/tasks/${taskId}/control-state`)).body).toMatchObject({
    is_paused: true,
    is_cancelled: false,
    paused_by: `${stack.principal.tenantId}/${stack.principal.userId}`,
    paused_at: expect.any(String),
  });
  // The first step and its tool call finish; the second model step waits.
  await sleep(2_000);
  expect(stepsOf(query)).toBe(1);
  expect((await http.call('GET', `/api/v1/tasks/${taskId}`)).body.status).toBe('TASK_STATUS_RUNNING');
  const described = await stack.temporal.workflow.getHandle(taskId).describe();
  expect(described.typedSearchAttributes.get(pausedKey)).toBe(true);
  // Pausing again changes nothing.
  expect((await http.call('POST', `/api/v1/tasks/${taskId}/pause`, {})).body).toMatchObject({ is_paused: true, pause_reason: 'checking the numbers' });

  expect(await http.call('POST', `/api/v1/tasks/${taskId}/resume`, { reason: 'fine' })).toMatchObject({
    status: 202,
    body: { success: true, is_paused: false },
  });
  expect(await http.waitForTask(taskId)).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'the answer is 4' });
  expect(stepsOf(query)).toBe(2);

  const events = (await http.call('GET', `/api/v1/tasks/${taskId}/events`)).body.events as Array<{ type: string; message: string }>;
  const types = events.map((e) => e.type);
  expect(types.indexOf('WORKFLOW_PAUSED')).toBeGreaterThan(0);
  expect(types.indexOf('WORKFLOW_RESUMED')).toBeGreaterThan(types.indexOf('WORKFLOW_PAUSED'));
  expect(events.filter((e) => e.type === 'WORKFLOW_PAUSED')).toHaveLength(1);
  expect(events.find((e) => e.type === 'WORKFLOW_PAUSED')!.message).toMatch(/checking the numbers/);
  expect((await http.call('GET', `/api/v1/tasks/${taskId}/control-state`)).body).toMatchObject({ is_paused: false, is_cancelled: false });
});

it('cancels a paused task, and refuses to steer a finished one', async () => {
  const query = unique('paused then cancelled');
  stack.model.on(query, { toolCalls: [{ id: 'c1', name: 'calculator', arguments: '{"expression":"1+1"}' }], delayMs: 300 }, { content: 'never' });
  const { body } = await http.call('POST', '/api/v1/tasks', { query });
  while (stepsOf(query) === 0) await sleep(20);
  await http.call('POST', `/api/v1/tasks/${body.task_id}/pause`, {});
  expect(await http.call('POST', `/api/v1/tasks/${body.task_id}/cancel`, { reason: 'not needed' })).toMatchObject({ status: 200 });
  expect(await http.waitForTask(body.task_id)).toMatchObject({ status: 'TASK_STATUS_CANCELLED' });
  expect(stepsOf(query)).toBe(1);
  expect((await http.call('GET', `/api/v1/tasks/${body.task_id}/control-state`)).body).toMatchObject({ is_paused: false, is_cancelled: true });
  expect(await http.call('POST', `/api/v1/tasks/${body.task_id}/resume`, {})).toMatchObject({
    status: 409,
    body: { error: expect.stringMatching(/already finished/) },
  });
  expect(await http.call('POST', `/api/v1/tasks/${body.task_id}/pause`, { reason: 5 })).toMatchObject({
    status: 400,
    body: { error: 'reason must be a string' },
  });

  const stranger = shannonCaller(http.base, await stack.newApiKey({ tenantId: `other-${Date.now()}`, userId: 'eve', roles: ['admin'] }));
  expect(await stranger.call('POST', `/api/v1/tasks/${body.task_id}/pause`, {})).toMatchObject({ status: 404 });
  expect(await stranger.call('GET', `/api/v1/tasks/${body.task_id}/control-state`)).toMatchObject({ status: 404 });
});

it('hands a message sent mid-loop to the next model step, once, and records it', async () => {
  const query = unique('steered calculation');
  // Matched on the whole conversation: after the message, the last user text is the message.
  stack.model.on(
    (_last, request) => JSON.stringify(request.messages).includes(query),
    { toolCalls: [{ id: 'c1', name: 'calculator', arguments: '{"expression":"3*3"}' }], delayMs: 600 },
    { content: 'nine, briefly' },
  );
  const { body } = await http.call('POST', '/api/v1/tasks', { query });
  while (stepsOf(query) === 0) await sleep(20);
  const headers = { 'idempotency-key': `msg-${body.task_id}` };
  expect(await http.call('POST', `/api/v1/swarm/${body.task_id}/message`, { message: 'please be brief' }, headers)).toMatchObject({
    status: 200,
    body: { success: true, status: 'delivered' },
  });
  expect(await http.call('POST', `/api/v1/swarm/${body.task_id}/message`, { message: 'please be brief' }, headers)).toMatchObject({
    status: 200,
    body: { success: true, status: 'duplicate' },
  });
  expect(await http.waitForTask(body.task_id)).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'nine, briefly' });

  const requests = stack.model.requests.filter((r) => JSON.stringify(r.body.messages).includes(query));
  expect(requests).toHaveLength(2);
  const said = (r: (typeof requests)[number]) => JSON.stringify(r.body.messages).split('please be brief').length - 1;
  expect([said(requests[0]!), said(requests[1]!)]).toEqual([0, 1]);
  const events = (await http.call('GET', `/api/v1/tasks/${body.task_id}/events`)).body.events as Array<{ type: string; message: string }>;
  expect(events.filter((e) => e.type === 'MESSAGE_RECEIVED').map((e) => e.message)).toEqual([
    `message from ${stack.principal.tenantId}/${stack.principal.userId}: please be brief`,
  ]);

  expect(await http.call('POST', `/api/v1/swarm/${body.task_id}/message`, { message: 'too late' })).toMatchObject({
    status: 409,
    body: { error: expect.stringMatching(/already finished/) },
  });
  expect(await http.call('POST', `/api/v1/swarm/${body.task_id}/message`, { message: '' })).toMatchObject({
    status: 400,
    body: { error: 'message is required' },
  });
  expect(await http.call('POST', `/api/v1/swarm/${body.task_id}/message`, { message: 'x'.repeat(40_000) })).toMatchObject({ status: 400 });
  expect(await http.call('POST', '/api/v1/swarm/task-nope/message', { message: 'hello' })).toMatchObject({ status: 404 });
});

it('steers through gRPC and the weft CLI as through REST: pause, control state, a message sent once, resume', async () => {
  const query = unique('steered from the terminal');
  stack.model.on(
    (_last, request) => JSON.stringify(request.messages).includes(query),
    // Long enough for a CLI process to start and pause it while this step runs.
    { toolCalls: [{ id: 'c1', name: 'calculator', arguments: '{"expression":"5*5"}' }], delayMs: 5_000 },
    { content: 'twenty-five' },
  );
  const { body } = await http.call('POST', '/api/v1/tasks', { query });
  const taskId = body.task_id as string;
  while (stepsOf(query) === 0) await sleep(20);
  const env = { WEFT_API_ADDRESS: `127.0.0.1:${stack.api.port}`, WEFT_API_KEY: stack.apiKey };

  expect((await weft(['pause', taskId, '--reason', 'from the terminal'], env)).stdout).toMatch(/task paused: from the terminal/);
  const state = JSON.parse((await weft(['--output', 'json', 'control-state', taskId], env)).stdout) as Record<string, unknown>;
  expect(state).toMatchObject({ is_paused: true, pause_reason: 'from the terminal', paused_by: `${stack.principal.tenantId}/${stack.principal.userId}` });
  expect((await weft(['message', taskId, 'answer in words', '--id', `cli-${taskId}`], env)).stdout.trim()).toBe('delivered');
  expect((await weft(['message', taskId, 'answer in words', '--id', `cli-${taskId}`], env)).stdout.trim()).toBe('already delivered');
  expect((await weft(['resume', taskId], env)).stdout).toMatch(/task running/);
  expect(await http.waitForTask(taskId)).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'twenty-five' });
  const requests = stack.model.requests.filter((r) => JSON.stringify(r.body.messages).includes(query));
  expect(requests.map((r) => JSON.stringify(r.body.messages).split('answer in words').length - 1)).toEqual([0, 1]);

  const grpc = await stack.clientFor(stack.principal);
  await expect(unaryCall(grpc, 'PauseTask', { task_id: taskId, reason: '' })).rejects.toMatchObject({ code: status.FAILED_PRECONDITION });
  expect(await unaryCall(grpc, 'GetControlState', { task_id: taskId })).toMatchObject({ is_paused: false, is_cancelled: false });
  await expect(unaryCall(grpc, 'SendSwarmMessage', { workflow_id: 'task-nope', message: 'hi' })).rejects.toMatchObject({ code: status.NOT_FOUND });
  const failed = await weft(['pause', taskId], env);
  expect(failed.stderr).toMatch(/already finished/);
  expect(failed.code).not.toBe(0);
});
