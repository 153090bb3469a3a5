import { listTaskEvents } from '../../core/events/event-log';
import { createPool } from '../../core/db/database';
import { RecordType, createRuntimeStore } from '../../core/store';
import { readRunLog, assistantText, userText } from '../../core/transcript';
import { findTask, insertTask } from '../../core/tasks/task-index';
import { runHandovers, type TaskRunHandover } from '../../core/tasks/run/run-handover';
import { runStartedRecord, seedRecord, sessionEndedRecord, stepReplyRecord, toolResultRecord, toolResultsRecord } from '../../core/tasks/run/run-records';
import { recordTaskEnd } from '../../core/tasks/run/task-lifecycle';
import { resetRunIdOf, taskRunOf } from '../../core/tasks/run/task-ref';
import { at, openStore, uid } from './fixtures';

// The handover of a Temporal reset, raced as several workers would run it: each activity of the
// reset's run carries it, and the first to run (in any process) makes the new run the task's.

const { pool, store } = openStore();
afterAll(() => pool.end());

const usage = { promptTokens: 10, completionTokens: 5, totalTokens: 15 };

const labelsOf = (workflowId: string) => ({ task_id: workflowId, tenant_id: 't', user_id: 'u' });

/** A running task on its first run, as startTask leaves it. */
async function startedTask() {
  const workflowId = uid('task');
  const owner = { ...taskRunOf(workflowId), sessionId: '' };
  const startedAt = at();
  const labels = labelsOf(workflowId);
  await store.startOneShotRun(
    {
      runId: owner.runId,
      agentId: owner.runAgentId,
      labels,
      startedAt,
      started: runStartedRecord(owner, startedAt, labels),
      canceled: sessionEndedRecord(owner, startedAt),
    },
    (tx) =>
      insertTask(tx, {
        taskId: workflowId,
        workflowId,
        runId: owner.runId,
        tenantId: 't',
        userId: 'u',
        sessionId: '',
        query: 'q',
        mode: 'STANDARD',
        status: 'RUNNING',
        createdAt: startedAt,
      }).then(() => undefined),
  );
  return { workflowId, owner };
}

/** A finished STANDARD task: one tool step, then an answer. */
async function finishedTask() {
  const { workflowId, owner } = await startedTask();
  const call = { id: 'calc-1', name: 'calculator' };
  const toolUse = { role: 'assistant' as const, parts: [{ kind: 'tool_use' as const, id: call.id, name: call.name, input: {} }] };
  await store.appendRunRecords([
    seedRecord(owner, at(), { messages: [userText('q')] }),
    stepReplyRecord(owner, 0, at(), { messages: [toolUse], usage }),
    toolResultRecord(owner, call, at(), { ok: true, content: 42 }),
    toolResultsRecord(owner, 1, at(), { messages: [{ role: 'user', parts: [{ kind: 'tool_result', toolUseId: call.id, content: '42' }] }] }),
    stepReplyRecord(owner, 1, at(), { messages: [assistantText('42')], usage }),
  ]);
  await recordTaskEnd(store, {
    taskId: workflowId,
    runId: owner.runId,
    workflowId,
    sessionId: '',
    status: 'COMPLETED',
    result: '42',
    errorMessage: '',
    model: 'm',
    finishedAtMs: at().getTime(),
  });
  return workflowId;
}

const handoverOf = (workflowId: string, atMs: number): TaskRunHandover => ({
  taskId: workflowId,
  tenantId: 't',
  userId: 'u',
  sessionId: '',
  workflowId,
  runId: resetRunIdOf(workflowId, 'temporal-run-2'),
  temporalRunId: 'temporal-run-2',
  belowStep: 1,
  toolCalls: ['calc-1'],
  atMs,
});

it('hands a task over once when several workers race with the activities of one reset run, whatever their times', async () => {
  const workflowId = await finishedTask();
  const workers = Array.from({ length: 4 }, () => {
    const workerPool = createPool(process.env.DATABASE_URL!, { size: 4 });
    return { pool: workerPool, handovers: runHandovers({ pool: workerPool, store: createRuntimeStore(workerPool) }) };
  });
  try {
    const base = at().getTime();
    await Promise.all(
      workers.flatMap((worker, i) => [
        worker.handovers.takeOver(handoverOf(workflowId, base + i)),
        worker.handovers.takeOver(handoverOf(workflowId, base + 10 + i)),
      ]),
    );
  } finally {
    await Promise.all(workers.map((worker) => worker.pool.end()));
  }

  const newRun = resetRunIdOf(workflowId, 'temporal-run-2');
  expect(await findTask(pool, workflowId)).toMatchObject({ runId: newRun, status: 'RUNNING', result: '' });
  // Its transcript up to the reset point, each record once and without the usage it was charged.
  const records = await readRunLog(store, newRun);
  expect(records.map((r) => r.key.slice(newRun.length + 1))).toEqual(['started', 'seed', 'step-0/reply', 'tool/calc-1']);
  expect(records.find((r) => r.key.endsWith('step-0/reply'))!.payload.toString()).not.toContain('totalTokens');
  expect((await store.loadRun(newRun)).labels).toMatchObject({ reset_from_run: workflowId, reset_temporal_run: 'temporal-run-2', reset_at_step: '2' });
  // The earlier run keeps its end and every record.
  expect(await store.loadRun(workflowId)).toMatchObject({ status: 'completed' });
  expect((await readRunLog(store, workflowId)).filter((r) => r.type === RecordType.RunCompleted)).toHaveLength(1);
  const events = await listTaskEvents(pool, workflowId);
  expect(events.filter((e) => e.message.startsWith('reset in Temporal'))).toHaveLength(1);
});

it('ends the earlier run as reset when it was still running, and finishes a handover an earlier attempt left half done', async () => {
  const { workflowId, owner } = await startedTask();
  await store.appendRunRecords([
    seedRecord(owner, at(), { messages: [userText('q')] }),
    stepReplyRecord(owner, 0, at(), { messages: [assistantText('thinking')], usage }),
  ]);
  // An earlier attempt started the new run and died before it moved the task.
  const handover = { ...handoverOf(workflowId, at().getTime()), toolCalls: [] };
  const newOwner = { ...taskRunOf(handover.runId), sessionId: '' };
  const earlier = at();
  const newLabels = { ...labelsOf(workflowId), reset_from_run: workflowId, reset_temporal_run: 'temporal-run-2', reset_at_step: '2' };
  await store.startOneShotRun({
    runId: handover.runId,
    agentId: newOwner.runAgentId,
    labels: newLabels,
    startedAt: earlier,
    started: runStartedRecord(newOwner, earlier, newLabels),
    canceled: sessionEndedRecord(newOwner, earlier),
  });

  await runHandovers({ pool, store }).takeOver(handover);
  expect(await store.loadRun(workflowId)).toMatchObject({ status: 'canceled', cancellationReason: 'reset_in_temporal' });
  expect((await readRunLog(store, handover.runId)).map((r) => r.key.slice(handover.runId.length + 1))).toEqual(['started', 'seed', 'step-0/reply']);
  expect(await findTask(pool, workflowId)).toMatchObject({ runId: handover.runId, status: 'RUNNING' });
});

it('refuses a straggling handover of an earlier reset run once a later reset has taken the task over', async () => {
  const workflowId = await finishedTask();
  const earlierAt = at().getTime();
  const later = { ...handoverOf(workflowId, at().getTime()), runId: resetRunIdOf(workflowId, 'temporal-run-3'), temporalRunId: 'temporal-run-3' };
  await runHandovers({ pool, store }).takeOver(later);

  const straggler = runHandovers({ pool, store }).takeOver(handoverOf(workflowId, earlierAt));
  await expect(straggler).rejects.toThrow(
    `reset run ${resetRunIdOf(workflowId, 'temporal-run-2')} was replaced by a later reset (run ${later.runId}) before it could take the task over`,
  );
  expect(await findTask(pool, workflowId)).toMatchObject({ runId: later.runId, status: 'RUNNING' });
  expect(await store.loadRun(later.runId)).toMatchObject({ status: 'running' });
});
