import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { createPool } from '../../core/db/database';
import { RecordType, createRuntimeStore } from '../../core/store';
import { runContextHeader, type RunContext } from '../../core/tasks/run/run-context';
import { resetRunIdOf } from '../../core/tasks/run/task-ref';
import { findTask } from '../../core/tasks/task-index';
import { readRunLog } from '../../core/transcript';
import type { taskWorkflow } from '../../workflows/task-workflow';
import { ScriptedModelServer } from '../model-server/scripted-model-server';
import { beforeModelStep, resetWorkflowTo, type HistoryEvent } from '../support/resets';
import { startTestWorker, testTaskInput } from '../support/stack';
import { itLeavesEveryTaskVerified } from '../support/verification';
import { startWorkerProcess } from '../support/worker-processes';

// The run context travels in a header of each activity (workflows/run-context.ts sets it,
// activities/run-context-interceptor.ts applies it). These runs check both ends: what the
// workflow's activities carry, in their history, and that what they carry is recorded exactly once
// though the worker dies right after recording it, before its activity could report back.

const pool = createPool(process.env.DATABASE_URL!);
const store = createRuntimeStore(pool);
const tenantId = `tenant-${randomUUID()}`;
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

/** Each activity the run scheduled, with the run context its header carried. */
async function scheduledWithContext(workflowId: string, runId?: string) {
  const { events } = await temporal.workflow.getHandle(workflowId, runId).fetchHistory();
  return (events ?? []).flatMap((event: HistoryEvent) => {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (!scheduled) return [];
    const header = scheduled.header?.fields?.[runContextHeader];
    const context: RunContext = header ? defaultPayloadConverter.fromPayload(header) : {};
    return [{ activity: scheduled.activityType!.name!, context }];
  });
}

const eventsOfType = async (workflowId: string, type: string) =>
  (await pool.query('SELECT count(*)::int AS n FROM task_events WHERE workflow_id = $1 AND event_type = $2', [workflowId, type])).rows[0].n as number;

it("carries a STANDARD task's start in its first model step's header only, and records it once though the worker dies right after it", async () => {
  const taskQueue = `run-context-${randomUUID()}`;
  const query = `deferred start ${randomUUID()}`;
  model.on(query, { toolCalls: [{ id: 'c1', name: 'calculator', arguments: '{"expression":"2+3"}' }] }, { content: 'It is 5.' });
  const crashing = startWorkerProcess(taskQueue, model.baseURL, { CRASH_AFTER_RECORD_TYPE: RecordType.RunStarted });
  const input = testTaskInput({ tenantId, taskId: `start-${randomUUID()}`, query });
  const handle = await temporal.workflow.start<typeof taskWorkflow>('taskWorkflow', { workflowId: input.taskId, taskQueue, args: [input] });

  expect(await crashing.exited).toBe('SIGKILL');
  // The start committed, and nothing after it: the model was not asked yet.
  expect((await store.loadRun(input.taskId)).status).toBe('running');
  expect(model.requests.filter((r) => JSON.stringify(r.body).includes(query))).toHaveLength(0);

  const replacement = await startTestWorker({ taskQueue, pool, store, modelBaseURL: model.baseURL });
  try {
    expect(await handle.result()).toMatchObject({ status: 'COMPLETED', result: 'It is 5.' });
  } finally {
    await replacement.stop();
  }

  const scheduled = await scheduledWithContext(input.taskId);
  expect(scheduled.map((s) => s.activity)).toEqual(['runModelStep', 'runToolCall', 'runModelStep']);
  expect(scheduled[0]!.context.start).toMatchObject({ taskId: input.taskId, workflowId: input.taskId, query, mode: 'STANDARD' });
  // Once the first step returned, the start is recorded: nothing after it carries it.
  expect(scheduled.slice(1).map((s) => s.context)).toEqual([{}, {}]);
  // The retried step applied the start again, and it stayed one start.
  const started = (await readRunLog(store, input.taskId)).filter((r) => r.type === RecordType.RunStarted);
  expect(started).toHaveLength(1);
  expect(await eventsOfType(input.taskId, 'WORKFLOW_STARTED')).toBe(1);
  expect(model.requests.filter((r) => JSON.stringify(r.body).includes(query))).toHaveLength(2);
});

it("carries a reset run's handover in every activity's header, and hands the task over once though the worker dies right after the new run starts", async () => {
  const taskQueue = `run-context-${randomUUID()}`;
  const query = `handover ${randomUUID()}`;
  model.on(
    query,
    { toolCalls: [{ id: 'c1', name: 'calculator', arguments: '{"expression":"6*7"}' }] },
    { content: 'It is 42.' },
    { content: 'answered by the reset run' },
  );
  const input = testTaskInput({ tenantId, taskId: `handover-${randomUUID()}`, query });
  const first = await startTestWorker({ taskQueue, pool, store, modelBaseURL: model.baseURL });
  try {
    await temporal.workflow.execute<typeof taskWorkflow>('taskWorkflow', { workflowId: input.taskId, taskQueue, args: [input] });
  } finally {
    await first.stop();
  }

  const crashing = startWorkerProcess(taskQueue, model.baseURL, { CRASH_AFTER_RECORD_TYPE: RecordType.RunStarted });
  const temporalRunId = await resetWorkflowTo(temporal, input.taskId, beforeModelStep(2));
  expect(await crashing.exited).toBe('SIGKILL');
  const resetRunId = resetRunIdOf(input.taskId, temporalRunId);
  expect((await store.loadRun(resetRunId)).status).toBe('running');

  const replacement = await startTestWorker({ taskQueue, pool, store, modelBaseURL: model.baseURL });
  try {
    expect(await temporal.workflow.getHandle(input.taskId, temporalRunId).result()).toMatchObject({
      status: 'COMPLETED',
      result: 'answered by the reset run',
    });
  } finally {
    await replacement.stop();
  }

  // Every activity the reset run scheduled itself claims the task for its store run.
  const resetRun = await scheduledWithContext(input.taskId, temporalRunId);
  const own = resetRun.filter((s) => s.context.handover);
  expect(own.map((s) => s.activity)).toEqual(['runModelStep']);
  expect(own[0]!.context.handover).toMatchObject({ taskId: input.taskId, runId: resetRunId, temporalRunId, belowStep: 1, toolCalls: ['c1'] });
  // The handover an attempt left half done was finished by the next, once: one start, the kept records copied once, one handover event.
  const names = (await readRunLog(store, resetRunId)).map((r) => r.key.slice(resetRunId.length + 1));
  expect(names.filter((n) => n === 'started')).toHaveLength(1);
  expect(names.filter((n) => n === 'seed')).toHaveLength(1);
  expect(names.filter((n) => n === 'step-0/reply')).toHaveLength(1);
  expect(await eventsOfType(input.taskId, 'STATUS_UPDATE')).toBe(1);
  expect(await findTask(pool, input.taskId)).toMatchObject({ runId: resetRunId, status: 'COMPLETED' });
});

itLeavesEveryTaskVerified(async () => {
  const { rows } = await pool.query<{ task_id: string }>('SELECT task_id FROM tasks WHERE tenant_id = $1', [tenantId]);
  return { deps: { pool, store, temporal }, taskIds: rows.map((row) => row.task_id) };
});
