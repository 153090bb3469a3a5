import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createActivities, type WeftActivities } from '../../activities';
import { createModelGateway } from '../../core/llm/gateway';
import { createToolRegistry } from '../../core/tools/registry';
import { toolMetadata } from '../../core/tools/tool';
import { ScriptedModelServer } from '../model-server/scripted-model-server';
import { openStore } from '../store/fixtures';
import { testCatalog } from '../support/test-catalog';

// The activities as Temporal runs them (heartbeats, cancellation, error mapping), without a Temporal
// server: MockActivityEnvironment gives each call a real activity context, and the store is real.

const model = new ScriptedModelServer();
const { pool, store } = openStore();
let toolRuns = 0;
const counter = {
  ...toolMetadata({ name: 'counter', version: '1.0.0', description: 'Counts its calls.', category: 'testing', parameters: { type: 'object' } }),
  execute: async () => ({ calls: (toolRuns += 1) }),
};
const silent = {
  ...toolMetadata({ name: 'silent', version: '1.0.0', description: 'Returns nothing.', category: 'testing', parameters: { type: 'object' } }),
  execute: async () => undefined,
};
// Tools that wait until they are let go (or cancelled), counting their runs and the keys they got.
const hanging: { runs: number; keys: Array<string | undefined>; release?: () => void } = { runs: 0, keys: [] };
const waitingTool = (name: string, idempotency: 'keyed' | 'at_most_once') => ({
  ...toolMetadata({ name, version: '1.0.0', description: 'Waits.', category: 'testing', parameters: { type: 'object' }, idempotency }),
  execute: async (_args: Record<string, unknown>, context: { idempotencyKey?: string; signal?: AbortSignal }) => {
    hanging.runs += 1;
    hanging.keys.push(context.idempotencyKey);
    await new Promise<void>((resolve, reject) => {
      hanging.release = resolve;
      context.signal?.addEventListener('abort', () => reject(context.signal!.reason));
    });
    return { booked: true };
  },
});
let activities: WeftActivities;

beforeAll(async () => {
  await model.start();
  const gateway = createModelGateway(testCatalog(model.baseURL));
  ({ activities } = createActivities({
    pool,
    store,
    gateway,
    cacheTtlSeconds: 60,
    tools: createToolRegistry([counter, silent, waitingTool('book', 'at_most_once'), waitingTool('pay', 'keyed')]),
  }));
});
afterAll(async () => {
  await model.stop();
  await pool.end();
});

/** A task whose own run is started, as taskWorkflow's first activity leaves it. */
async function startedTask() {
  const workflowId = `task-${randomUUID()}`;
  const task = { taskId: workflowId, tenantId: 't', userId: 'u', sessionId: '', workflowId, query: 'q', mode: 'STANDARD' as const, startedAtMs: Date.now() };
  await new MockActivityEnvironment().run(activities.startTask, task);
  return task;
}

const stepOf = (task: { taskId: string; workflowId: string }, seed: string) => ({
  taskId: task.taskId,
  workflowId: task.workflowId,
  runId: task.workflowId,
  sessionId: '',
  agentId: 'main',
  step: 0,
  seed,
  budget: {},
  stepAtMs: Date.now(),
});

it('heartbeats while a model answers, and a retried step returns the stored reply without asking again', async () => {
  const task = await startedTask();
  model.on('slow question', { content: 'slow answer', delayMs: 2_500 });
  const env = new MockActivityEnvironment();
  let heartbeats = 0;
  env.on('heartbeat', () => (heartbeats += 1));
  const input = stepOf(task, 'slow question');
  const first = await env.run(activities.runModelStep, input);
  expect(first).toMatchObject({ kind: 'reply', text: 'slow answer' });
  expect(heartbeats).toBeGreaterThanOrEqual(1);

  const asked = model.requests.length;
  const retried = await new MockActivityEnvironment({ attempt: 2 }).run(activities.runModelStep, input);
  expect(retried).toEqual(first);
  expect(model.requests.length).toBe(asked);
});

it('aborts the model call when the activity is cancelled, and stores nothing', async () => {
  const task = await startedTask();
  model.on('question to cancel', { content: 'never stored', delayMs: 10_000 });
  const env = new MockActivityEnvironment();
  const running = env.run(activities.runModelStep, stepOf(task, 'question to cancel'));
  setTimeout(() => env.cancel(), 300);
  const startedAt = Date.now();
  await expect(running).rejects.toThrow();
  expect(Date.now() - startedAt).toBeLessThan(5_000);
  const log = await store.listRunRecords(task.workflowId, '', 10);
  expect(log.records.map((record) => record.type)).toEqual(['run_started']);
});

it('finishing a task returns what it spent; the same end proposed again later returns it again and changes nothing', async () => {
  const task = await startedTask();
  model.on('what did it cost', { content: 'this much', usage: { prompt_tokens: 30, completion_tokens: 12 } });
  const step = await new MockActivityEnvironment().run(activities.runModelStep, stepOf(task, 'what did it cost'));
  expect(step).toMatchObject({ kind: 'reply', usage: { totalTokens: 42 } });

  const end = {
    taskId: task.taskId,
    runId: task.workflowId,
    sessionId: '',
    status: 'COMPLETED' as const,
    result: 'this much',
    errorMessage: '',
    model: 'm',
    finishedAtMs: Date.now(),
  };
  const spent = (await new MockActivityEnvironment().run(activities.finishTask, end)) as { tokens: number; costUsd: number };
  expect(spent.tokens).toBe(42);
  const events = await pool.query('SELECT count(*)::int AS n FROM task_events WHERE workflow_id = $1', [task.workflowId]);

  // A local activity after a failed workflow task proposes the end again, with a later time.
  const again = await new MockActivityEnvironment({ attempt: 2 }).run(activities.finishTask, { ...end, finishedAtMs: end.finishedAtMs + 5_000 });
  expect(again).toEqual(spent);
  expect((await pool.query('SELECT count(*)::int AS n FROM task_events WHERE workflow_id = $1', [task.workflowId])).rows).toEqual(events.rows);
  expect((await pool.query('SELECT completed_at FROM tasks WHERE task_id = $1', [task.taskId])).rows[0].completed_at).toEqual(new Date(end.finishedAtMs));
});

it('runs a tool once: a retried call returns the stored outcome', async () => {
  const task = await startedTask();
  const input = { ...task, runId: task.workflowId, agentId: 'main', call: { id: 'call-1', name: 'counter', arguments: {} }, atMs: Date.now() };
  const before = toolRuns;
  const first = await new MockActivityEnvironment().run(activities.runToolCall, input);
  const retried = await new MockActivityEnvironment({ attempt: 2 }).run(activities.runToolCall, input);
  expect(first).toEqual({ ok: true, content: { calls: before + 1 } });
  expect(retried).toEqual(first);
  expect(toolRuns).toBe(before + 1);

  // An outcome without content is stored and read back as it was.
  const nothing = { ...input, call: { id: 'call-2', name: 'silent', arguments: {} } };
  const once = await new MockActivityEnvironment().run(activities.runToolCall, nothing);
  expect(await new MockActivityEnvironment({ attempt: 2 }).run(activities.runToolCall, nothing)).toEqual(once);
});

it('fails for good on a store contract violation, and leaves other errors to Temporal to retry', async () => {
  const input = {
    taskId: 'no-such-task',
    workflowId: 'no-such-task',
    runId: `no-such-run-${randomUUID()}`,
    sessionId: '',
    agentId: 'main',
    status: 'COMPLETED' as const,
    result: '',
    error: '',
    atMs: Date.now(),
  };
  const failure = await new MockActivityEnvironment().run(activities.finishAgent, input).catch((err: unknown) => err);
  expect(failure).toBeInstanceOf(ApplicationFailure);
  expect(failure).toMatchObject({ nonRetryable: true, type: 'RunNotFoundError', message: 'run not found' });

  const { activities: unreachable } = createActivities({
    pool,
    store,
    gateway: createModelGateway(testCatalog('http://127.0.0.1:1/v1')),
    cacheTtlSeconds: 60,
    tools: createToolRegistry([]),
  });
  const task = await startedTask();
  const down = await new MockActivityEnvironment().run(unreachable.runModelStep, stepOf(task, 'anyone there?')).catch((err: unknown) => err);
  expect(down).not.toBeInstanceOf(ApplicationFailure);
  expect(down).toMatchObject({ name: 'ModelUnavailableError' });
});

/** Runs a tool call whose attempt is cancelled mid-call (as a worker that dies leaves it), then its retry. */
async function interruptedThenRetried(name: string) {
  const task = await startedTask();
  const input = { ...task, runId: task.workflowId, agentId: 'main', call: { id: `call-${name}`, name, arguments: {} }, atMs: Date.now() };
  hanging.runs = 0;
  hanging.keys = [];
  const first = new MockActivityEnvironment();
  const attempt = first.run(activities.runToolCall, input);
  while (hanging.runs === 0) await new Promise((resolve) => setTimeout(resolve, 10));
  first.cancel();
  await expect(attempt).rejects.toThrow();
  const retry = new MockActivityEnvironment({ attempt: 2 }).run(activities.runToolCall, input);
  return { task, retry };
}

it('never runs an at-most-once call again once it may have started: the retry records outcome_unknown', async () => {
  const { task, retry } = await interruptedThenRetried('book');
  expect(await retry).toEqual({
    ok: false,
    error: { category: 'outcome_unknown', message: expect.stringContaining('book was interrupted after its request may have been sent') },
  });
  expect(hanging.runs).toBe(1);
  const log = await store.listRunRecords(task.workflowId, '', 10);
  expect(log.records.map((record) => record.type)).toEqual(['run_started', 'tool_call_started', 'tool_result']);
});

it('runs a keyed call again with the same idempotency key', async () => {
  const { retry } = await interruptedThenRetried('pay');
  while (hanging.runs < 2) await new Promise((resolve) => setTimeout(resolve, 10));
  hanging.release!();
  expect(await retry).toEqual({ ok: true, content: { booked: true } });
  expect(hanging.keys).toHaveLength(2);
  expect(hanging.keys[0]).toMatch(/^weft-[0-9a-f]{40}$/);
  expect(hanging.keys[1]).toBe(hanging.keys[0]);
});
