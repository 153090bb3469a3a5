import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { createPool } from '../../core/db/database';
import { RecordType, createRuntimeStore } from '../../core/store';
import { assistantText, buildMessagesFromRunLog, userText } from '../../core/transcript';
import { controlStateQuery, pauseTaskUpdate, resumeTaskUpdate } from '../../workflows/messages';
import type { taskWorkflow } from '../../workflows/task-workflow';
import { ScriptedModelServer } from '../model-server/scripted-model-server';
import { startTestWorker, testTaskInput } from '../support/stack';
import { itLeavesEveryTaskVerified } from '../support/verification';
import { startWorkerProcess } from '../support/worker-processes';

const pool = createPool(process.env.DATABASE_URL!);
// This file's tasks, for verifying them at its end.
const tenantId = `tenant-${randomUUID()}`;
const store = createRuntimeStore(pool);
const model = new ScriptedModelServer();
let connection: Connection;
let temporal: Client;

beforeAll(async () => {
  await model.start();
  connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  temporal = new Client({ connection });
});
afterAll(async () => {
  await connection.close();
  await model.stop();
  await pool.end();
});

it('a worker killed right after a store write committed: the task completes with no duplicate and no missing record', async () => {
  const taskQueue = `crash-${randomUUID()}`;
  const query = `crash-test question ${randomUUID()}`;
  model.on(query, { content: 'The answer survived the crash.', usage: { prompt_tokens: 9, completion_tokens: 5 } });

  const crashing = startWorkerProcess(taskQueue, model.baseURL, { CRASH_AFTER_RECORD_TYPE: RecordType.TranscriptAppended });

  const input = testTaskInput({ tenantId, taskId: `crash-${randomUUID()}`, sessionId: `sess-${randomUUID()}`, query });
  const handle = await temporal.workflow.start<typeof taskWorkflow>('taskWorkflow', { workflowId: input.taskId, taskQueue, args: [input] });

  expect(await crashing.exited).toBe('SIGKILL');
  // The reply is committed, but the activity never reported it: the workflow is still running.
  expect(await store.findRunRecord(input.taskId, `${input.taskId}/step-0/reply`)).toBeDefined();
  expect((await handle.describe()).status.name).toBe('RUNNING');

  const replacement = await startTestWorker({ taskQueue, pool, store, modelBaseURL: model.baseURL });
  try {
    const result = await handle.result();
    expect(result).toMatchObject({ status: 'COMPLETED', result: 'The answer survived the crash.' });
  } finally {
    await replacement.stop();
  }

  // The retried step found its stored reply instead of asking the model again.
  expect(model.requests.filter((r) => JSON.stringify(r.body).includes(query))).toHaveLength(1);
  const records = (await store.listRunRecords(input.taskId, '', 100)).records;
  expect(records.map((r) => r.type)).toEqual([RecordType.RunStarted, RecordType.TranscriptSeeded, RecordType.TranscriptAppended, RecordType.RunCompleted]);
  expect(await buildMessagesFromRunLog(store, input.taskId)).toEqual([userText(query), assistantText('The answer survived the crash.')]);
  const task = await pool.query('SELECT status, total_tokens FROM tasks WHERE task_id = $1', [input.taskId]);
  expect(task.rows).toEqual([{ status: 'COMPLETED', total_tokens: 14 }]);
});

it("a worker killed during an agent's model step of a COMPLEX task: completed steps never run again", async () => {
  const taskQueue = `crash-${randomUUID()}`;
  const prefix = `kill-dag-${randomUUID()}`;
  model.on(`${prefix} quick`, { toolCalls: [{ id: 'q1', name: 'calculator', arguments: '{"expression":"6*7"}' }] }, { content: 'quick done' });
  model.on(`${prefix} slow`, { content: 'slow done', delayMs: 1_500 });
  model.on((text) => text.includes('Combine these results') && text.includes(prefix), { content: 'all done' });
  const worker = startWorkerProcess(taskQueue, model.baseURL);
  const plan = {
    agents: [
      { id: 'quick', description: `${prefix} quick`, dependencies: [], tools: ['calculator'], tier: 'MEDIUM' as const },
      { id: 'slow', description: `${prefix} slow`, dependencies: ['quick'], tools: [], tier: 'MEDIUM' as const },
    ],
  };
  const input = testTaskInput({ tenantId, taskId: `kill-${randomUUID()}`, query: `${prefix} task`, manualPlan: plan });
  const handle = await temporal.workflow.start<typeof taskWorkflow>('taskWorkflow', { workflowId: input.taskId, taskQueue, args: [input] });

  // Kill the worker while the slow agent's model call is in flight.
  const slowAsked = () => model.requests.some((r) => JSON.stringify(r.body).includes(`${prefix} slow`));
  while (!slowAsked()) await new Promise((resolve) => setTimeout(resolve, 20));
  worker.child.kill('SIGKILL');
  expect(await worker.exited).toBe('SIGKILL');

  const replacement = await startTestWorker({ taskQueue, pool, store, modelBaseURL: model.baseURL });
  try {
    expect(await handle.result()).toMatchObject({ status: 'COMPLETED', result: 'all done' });
  } finally {
    await replacement.stop();
  }
  const asked = (text: string) => model.requests.filter((r) => JSON.stringify(r.body).includes(text)).length;
  // The quick agent's two steps and its tool call had completed: none ran again.
  expect(asked(`${prefix} quick`)).toBe(2);
  const quickRun = `${input.taskId}/agent/quick`;
  const quickRecords = (await store.listRunRecords(quickRun, '', 100)).records.map((r) => r.type);
  expect(quickRecords).toEqual([
    RecordType.RunStarted,
    RecordType.TranscriptSeeded,
    RecordType.TranscriptAppended,
    'tool_result',
    RecordType.TranscriptAppended,
    RecordType.TranscriptAppended,
    RecordType.RunCompleted,
  ]);
  const invoked = await pool.query(`SELECT count(*)::int AS n FROM task_events WHERE workflow_id = $1 AND event_type = 'TOOL_INVOKED'`, [input.taskId]);
  expect(invoked.rows[0].n).toBe(1);
  // Every run started and ended exactly once.
  for (const runId of [input.taskId, quickRun, `${input.taskId}/agent/slow`]) {
    const types = (await store.listRunRecords(runId, '', 100)).records.map((r) => r.type);
    expect(types.filter((t) => t === RecordType.RunStarted)).toHaveLength(1);
    expect(types.filter((t) => t === RecordType.RunCompleted)).toHaveLength(1);
  }
});

it("a worker killed right after the task's end committed, before its workflow task completed: the end is not written twice", async () => {
  const taskQueue = `crash-${randomUUID()}`;
  const query = `crash at the end ${randomUUID()}`;
  model.on(query, { content: 'finished once' });
  const crashing = startWorkerProcess(taskQueue, model.baseURL, { CRASH_AFTER_RECORD_TYPE: RecordType.RunCompleted });
  const input = testTaskInput({ tenantId, taskId: `crash-end-${randomUUID()}`, query });
  const handle = await temporal.workflow.start<typeof taskWorkflow>('taskWorkflow', { workflowId: input.taskId, taskQueue, args: [input] });
  expect(await crashing.exited).toBe('SIGKILL');
  const endedAt = (await store.listRunRecords(input.taskId, '', 100)).records.at(-1)!;
  expect(endedAt.type).toBe(RecordType.RunCompleted);

  // The replacement proposes the end again, with a later workflow time: it is already recorded.
  const replacement = await startTestWorker({ taskQueue, pool, store, modelBaseURL: model.baseURL });
  try {
    expect(await handle.result()).toMatchObject({ status: 'COMPLETED', result: 'finished once' });
  } finally {
    await replacement.stop();
  }
  const records = (await store.listRunRecords(input.taskId, '', 100)).records;
  expect(records.filter((r) => r.type === RecordType.RunCompleted)).toEqual([endedAt]);
  const finished = await pool.query(`SELECT count(*)::int AS n FROM task_events WHERE workflow_id = $1 AND event_type = 'WORKFLOW_COMPLETED'`, [input.taskId]);
  expect(finished.rows[0].n).toBe(1);
});

it('a paused task holds its place through a worker SIGKILL, and after resume runs every step exactly once', async () => {
  const taskQueue = `crash-${randomUUID()}`;
  const query = `paused through a crash ${randomUUID()}`;
  model.on(
    query,
    { toolCalls: [{ id: 'p1', name: 'calculator', arguments: '{"expression":"7*6"}' }], delayMs: 500 },
    { content: 'forty-two, after the crash' },
  );
  const asked = () => model.requests.filter((r) => JSON.stringify(r.body).includes(query)).length;
  const worker = startWorkerProcess(taskQueue, model.baseURL);
  const input = testTaskInput({ tenantId, taskId: `paused-crash-${randomUUID()}`, query });
  const handle = await temporal.workflow.start<typeof taskWorkflow>('taskWorkflow', { workflowId: input.taskId, taskQueue, args: [input] });
  while (asked() === 0) await new Promise((resolve) => setTimeout(resolve, 20));
  await handle.executeUpdate(pauseTaskUpdate, { args: [{ reason: 'hold through the crash', requestedBy: 'ops' }] });
  // The model step under way finishes and is recorded; its tool call waits for the resume.
  const recordTypes = async () => (await store.listRunRecords(input.taskId, '', 100)).records.map((r) => r.type);
  while (!(await recordTypes()).includes(RecordType.TranscriptAppended)) await new Promise((resolve) => setTimeout(resolve, 20));
  worker.child.kill('SIGKILL');
  expect(await worker.exited).toBe('SIGKILL');

  const replacement = await startTestWorker({ taskQueue, pool, store, modelBaseURL: model.baseURL });
  try {
    // The replacement replays the pause: still held, nothing asked again.
    expect(await handle.query(controlStateQuery)).toMatchObject({ isPaused: true, pauseReason: 'hold through the crash' });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(asked()).toBe(1);
    expect(await recordTypes()).not.toContain('tool_result');
    expect((await handle.describe()).status.name).toBe('RUNNING');
    await handle.executeUpdate(resumeTaskUpdate, { args: [{ reason: 'crash over', requestedBy: 'ops' }] });
    expect(await handle.result()).toMatchObject({ status: 'COMPLETED', result: 'forty-two, after the crash' });
  } finally {
    await replacement.stop();
  }
  expect(asked()).toBe(2);
  const types = await recordTypes();
  expect(types.filter((t) => t === 'tool_result')).toHaveLength(1);
  // The first reply, the tool's result handed back, the second reply.
  expect(types.filter((t) => t === RecordType.TranscriptAppended)).toHaveLength(3);
  const invoked = await pool.query(`SELECT count(*)::int AS n FROM task_events WHERE workflow_id = $1 AND event_type = 'TOOL_INVOKED'`, [input.taskId]);
  expect(invoked.rows[0].n).toBe(1);
});

itLeavesEveryTaskVerified(async () => {
  const { rows } = await pool.query<{ task_id: string }>('SELECT task_id FROM tasks WHERE tenant_id = $1', [tenantId]);
  return { deps: { pool, store, temporal }, taskIds: rows.map((row) => row.task_id) };
});
