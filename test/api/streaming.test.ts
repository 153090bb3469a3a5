import { status as GrpcStatus } from '@grpc/grpc-js';
import { listTaskEvents } from '../../core/events/event-log';
import { createStreamingClient } from '../../protos/clients';
import type { StreamingServiceClient } from '../../protos/generated/shannon/orchestrator/StreamingService';
import type { TaskUpdate__Output } from '../../protos/generated/shannon/orchestrator/TaskUpdate';
import { ephemeralListen, startApiServer } from '../../api/server';
import { submitTask, waitForFinish } from '../support/grpc';
import { startTestStack, type TestStack } from '../support/stack';
import { durable, readStream } from '../support/streams';

let stack: TestStack;
let streaming: StreamingServiceClient;
beforeAll(async () => {
  stack = await startTestStack();
  streaming = createStreamingClient(`127.0.0.1:${stack.api.port}`, { apiKey: stack.apiKey });
});
afterAll(async () => {
  streaming.close();
  await stack.stop();
});

/** Reads a stream until it ends, or until `stopAfter` updates (then disconnects). */
const read = (request: object, stopAfter = Infinity, client = streaming) => readStream(client, request, stopAfter);

/** A busy task: several tool steps, so its log has a dozen events arriving over time. */
async function busyTask(): Promise<string> {
  const query = `stream me ${Date.now()}-${Math.random()}`;
  const call = (id: string) => ({ toolCalls: [{ id, name: 'calculator', arguments: '{"expression":"1+1"}' }], delayMs: 40 });
  stack.model.on(query, call('s1'), call('s2'), call('s3'), call('s4'), { content: 'streamed', delayMs: 40 });
  return (await submitTask(stack.orchestrator, { query })).workflow_id;
}

it('streams the whole log live, in order, and ends with the task', async () => {
  const workflowId = await busyTask();
  const updates = await read({ workflow_id: workflowId });
  const log = await listTaskEvents(stack.pool, workflowId);
  expect(durable(updates).map((u) => [Number(u.seq), u.type])).toEqual(log.map((e) => [e.seq, e.type]));
  expect(updates.at(-1)!.type).toBe('WORKFLOW_COMPLETED');
  expect(updates[0]!.stream_id).toMatch(/^\d+-1$/);
});

it('resumes after random disconnects with last_event_id or last_stream_id: no gap, no duplicate', async () => {
  const workflowId = await busyTask();
  const seen: TaskUpdate__Output[] = [];
  for (let round = 0; round < 50; round++) {
    const last = durable(seen).at(-1);
    const resume = !last ? {} : round % 2 === 0 ? { last_event_id: last.seq } : { last_stream_id: last.stream_id };
    const chunk = await read({ workflow_id: workflowId, ...resume }, 1 + Math.floor(Math.random() * 3));
    seen.push(...chunk);
    if (seen.at(-1)?.type === 'WORKFLOW_COMPLETED') break;
  }
  const log = await listTaskEvents(stack.pool, workflowId);
  expect(durable(seen).map((u) => Number(u.seq))).toEqual(log.map((e) => e.seq));
});

it("streams a model step's text live as LLM_PARTIAL updates, marked live-only and never replayed", async () => {
  const query = `partial output ${Date.now()}`;
  const answer = `A long answer that streams in pieces: ${'lorem ipsum dolor sit amet '.repeat(20)}done.`;
  // The delay lets the stream connect before the model starts answering.
  stack.model.on(query, { content: answer, delayMs: 500 });
  const { workflow_id: workflowId } = await submitTask(stack.orchestrator, { query });
  const live = await read({ workflow_id: workflowId });
  const partials = live.filter((u) => u.type === 'LLM_PARTIAL');
  expect(partials.length).toBeGreaterThan(0);
  expect(partials.every((u) => u.seq === '0' && u.stream_id === '')).toBe(true);
  expect(partials.map((u) => u.message).join('')).toBe(answer);
  expect((await listTaskEvents(stack.pool, workflowId)).some((e) => e.type === 'LLM_PARTIAL')).toBe(false);
  expect((await read({ workflow_id: workflowId })).some((u) => u.type === 'LLM_PARTIAL')).toBe(false);
});

it('filters by type and refuses bad input and other tenants', async () => {
  const workflowId = await busyTask();
  await waitForFinish(stack.orchestrator, workflowId);
  const lifecycle = await read({ workflow_id: workflowId, types: ['WORKFLOW_STARTED', 'WORKFLOW_COMPLETED', 'ERROR_OCCURRED'] });
  expect(lifecycle.map((u) => u.type)).toEqual(['WORKFLOW_STARTED', 'WORKFLOW_COMPLETED']);
  await expect(read({ workflow_id: workflowId, last_stream_id: 'yesterday' })).rejects.toMatchObject({ code: GrpcStatus.INVALID_ARGUMENT });
  await expect(read({ workflow_id: workflowId, types: ['NOT_A_TYPE'] })).rejects.toMatchObject({ code: GrpcStatus.INVALID_ARGUMENT });
  await expect(read({ workflow_id: '' })).rejects.toMatchObject({ code: GrpcStatus.INVALID_ARGUMENT });
  const other = createStreamingClient(`127.0.0.1:${stack.api.port}`, { apiKey: await stack.newApiKey({ tenantId: 'elsewhere', userId: 'eve', roles: [] }) });
  await expect(read({ workflow_id: workflowId }, Infinity, other)).rejects.toMatchObject({ code: GrpcStatus.NOT_FOUND });
  other.close();
});

it('resumes across an API restart: the stopping server ends the stream, the new one continues it', async () => {
  const workflowId = await busyTask();
  const first = await startApiServer(stack.apiDeps, ephemeralListen());
  const before = createStreamingClient(`127.0.0.1:${first.port}`, { apiKey: stack.apiKey });
  const seen: TaskUpdate__Output[] = [];
  const ended = new Promise<void>((resolve, reject) => {
    const call = before.StreamTaskExecution({ workflow_id: workflowId });
    call.on('data', (update: TaskUpdate__Output) => {
      seen.push(update);
      if (seen.length === 2) void first.shutdown();
    });
    call.on('end', () => resolve());
    call.on('error', reject);
  });
  await ended;
  before.close();
  expect(seen.at(-1)?.type).not.toBe('WORKFLOW_COMPLETED');

  const second = await startApiServer(stack.apiDeps, ephemeralListen());
  const after = createStreamingClient(`127.0.0.1:${second.port}`, { apiKey: stack.apiKey });
  seen.push(...(await read({ workflow_id: workflowId, last_stream_id: durable(seen).at(-1)!.stream_id }, Infinity, after)));
  after.close();
  await second.shutdown();
  const log = await listTaskEvents(stack.pool, workflowId);
  expect(durable(seen).map((u) => Number(u.seq))).toEqual(log.map((e) => e.seq));
});
