import { randomUUID } from 'node:crypto';
import { verifyTask } from '../../cli/verify';
import { readRunLog } from '../../core/transcript';
import { findTask } from '../../core/tasks/task-index';
import { decodeApprovalDecided } from '../../core/tasks/run/run-records';
import { resetRunIdOf } from '../../core/tasks/run/task-ref';
import { createStreamingClient } from '../../protos/clients';
import type { StreamingServiceClient } from '../../protos/generated/shannon/orchestrator/StreamingService';
import { getTaskStatus, submitTask, waitForFinish } from '../support/grpc';
import { approveTask, pendingApprovalOf, taskDetails, until } from '../support/orchestration';
import { startTestStack, type TestStack } from '../support/stack';
import { afterModelStep, beforeModelStep, resetWorkflowTo, scheduledOf, type EventId, type HistoryEvent } from '../support/resets';
import { durable, readStream } from '../support/streams';
import { itLeavesEveryTaskVerified } from '../support/verification';

// A reset from the Web UI or `temporal workflow reset` runs a task's workflow again from a point of
// its history, in a new Temporal run, and gives the task a new store run linked to the one it
// continues: the steps before the reset point keep what was recorded (nothing is asked or charged
// again), the steps after it run fresh, both runs keep their records, and the task's status and
// stream follow the new run.

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

const chatRequestsAbout = (text: string) => stack.model.requests.filter((r) => r.path === '/v1/chat/completions' && JSON.stringify(r.body).includes(text));
const verified = (taskId: string) => verifyTask({ pool: stack.pool, store: stack.store, temporal: stack.temporal }, taskId);
const resetTo = (workflowId: string, pick: (events: HistoryEvent[]) => EventId, reapplySignals = true) =>
  resetWorkflowTo(stack.temporal, workflowId, pick, reapplySignals);

/** The workflow task that asked for the first approval. */
const beforeApproval = (events: HistoryEvent[]) =>
  scheduledOf(events, 'requestApproval')[0]!.activityTaskScheduledEventAttributes!.workflowTaskCompletedEventId!;

async function finishedRun(workflowId: string, runId: string) {
  const handle = stack.temporal.workflow.getHandle(workflowId, runId);
  await handle.result().catch(() => undefined);
  return handle.describe();
}

/** The keys a run recorded, without the run's own prefix. */
const recordNames = async (runId: string) => (await readRunLog(stack.store, runId)).map((r) => r.key.slice(runId.length + 1));

it.each([
  ['before the second model step', beforeModelStep(2), ['seed', 'step-0/reply', 'tool/calc-1']],
  ['after the first model step', afterModelStep(1), ['seed', 'step-0/reply']],
])('a finished task reset %s gets a new run that reuses the steps before the point and runs the rest fresh', async (_point, pick, reused) => {
  const query = `reset me ${randomUUID()}`;
  stack.model.on(
    query,
    { toolCalls: [{ id: 'calc-1', name: 'calculator', arguments: '{"expression":"6*7"}' }] },
    { content: 'It is 42.' },
    { content: 'a fresh answer' },
  );
  const submitted = await submitTask(stack.orchestrator, { query });
  const before = await waitForFinish(stack.orchestrator, submitted.task_id);
  expect(before).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'It is 42.' });
  const firstRun = (await findTask(stack.pool, submitted.task_id))!.runId;

  const temporalRunId = await resetTo(submitted.workflow_id, pick);
  expect((await finishedRun(submitted.workflow_id, temporalRunId)).status.name).toBe('COMPLETED');

  // The first model step was not asked again; the second ran fresh.
  expect(chatRequestsAbout(query)).toHaveLength(3);
  const after = await getTaskStatus(stack.orchestrator, submitted.task_id);
  expect(after).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'a fresh answer' });
  // What the task spent: both runs' model calls, the reused step once.
  const freshTokens = Number(after.metrics!.token_usage!.total_tokens) - Number(before.metrics!.token_usage!.total_tokens);
  expect(freshTokens).toBeGreaterThan(0);

  // The new run is the task's, linked to the one it continues; both keep their records.
  const newRun = resetRunIdOf(submitted.workflow_id, temporalRunId);
  expect((await findTask(stack.pool, submitted.task_id))!.runId).toBe(newRun);
  expect((await stack.store.loadRun(newRun)).labels).toMatchObject({ reset_from_run: firstRun, reset_temporal_run: temporalRunId });
  expect(await stack.store.loadRun(firstRun)).toMatchObject({ status: 'completed' });
  expect(await recordNames(firstRun)).toEqual(expect.arrayContaining(['step-0/reply', 'tool/calc-1', 'step-1/reply', 'completed']));
  const newNames = await recordNames(newRun);
  expect(newNames).toEqual(expect.arrayContaining([...reused, 'step-1/reply', 'completed']));
  expect(newNames.filter((name) => name === 'step-0/reply')).toHaveLength(1);

  // Read from the start, the stream tells both runs and ends with the new run's end.
  const updates = durable(await readStream(streaming, { workflow_id: submitted.workflow_id }));
  expect(updates.filter((u) => u.type === 'WORKFLOW_COMPLETED')).toHaveLength(2);
  expect(updates.at(-1)!.type).toBe('WORKFLOW_COMPLETED');
  expect(updates.find((u) => u.type === 'STATUS_UPDATE' && u.message.startsWith('reset in Temporal'))!.message).toContain(
    `run ${newRun} carries the task on from step 2`,
  );
  expect(await verified(submitted.task_id)).toEqual([]);
});

it('a running task reset before its second model step ends the earlier run as reset and answers from the new one', async () => {
  const query = `reset me while I run ${randomUUID()}`;
  stack.model.on(
    query,
    { toolCalls: [{ id: 'calc-1', name: 'calculator', arguments: '{"expression":"6*7"}' }] },
    { content: 'too late', delayMs: 1_500 },
    { content: 'answered after the reset' },
  );
  const submitted = await submitTask(stack.orchestrator, { query });
  const firstRun = (await until(() => findTask(stack.pool, submitted.task_id)))!.runId;
  const stream = readStream(streaming, { workflow_id: submitted.workflow_id });
  await until(() => chatRequestsAbout(query).length === 2);

  const temporalRunId = await resetTo(submitted.workflow_id, beforeModelStep(2));
  expect((await finishedRun(submitted.workflow_id, temporalRunId)).status.name).toBe('COMPLETED');
  expect(await waitForFinish(stack.orchestrator, submitted.task_id)).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'answered after the reset' });
  expect(await stack.store.loadRun(firstRun)).toMatchObject({ status: 'canceled', cancellationReason: 'reset_in_temporal' });

  // A stream open through the reset goes on with the new run and ends with the task.
  const updates = durable(await stream);
  expect(updates.some((u) => u.message.includes(`run ${resetRunIdOf(submitted.workflow_id, temporalRunId)} carries the task on`))).toBe(true);
  expect(updates.at(-1)!.type).toBe('WORKFLOW_COMPLETED');
  expect(updates.filter((u) => u.type === 'WORKFLOW_COMPLETED')).toHaveLength(1);
  expect(await verified(submitted.task_id)).toEqual([]);
});

it('a task reset while it waits for approval asks again in its new run, and the approval decides it', async () => {
  const query = `reset my approval ${randomUUID()}`;
  stack.model.on(query, { content: 'approved after a reset' });
  const submitted = await submitTask(stack.orchestrator, { query, require_approval: true });
  const approval = await pendingApprovalOf(stack.orchestrator, submitted.task_id);

  const temporalRunId = await resetTo(submitted.workflow_id, beforeApproval);
  const newRun = resetRunIdOf(submitted.workflow_id, temporalRunId);
  // The same approval is pending again, now asked by the new run.
  await until(async () =>
    (await readRunLog(stack.store, newRun).catch(() => [])).some((r) => r.key === `${newRun}/approval/${approval.approval_id}/requested`),
  );
  expect((await getTaskStatus(stack.orchestrator, submitted.task_id)).status).toBe('TASK_STATUS_RUNNING');
  expect((await pendingApprovalOf(stack.orchestrator, submitted.task_id)).approval_id).toBe(approval.approval_id);

  await approveTask(stack.orchestrator, { approval_id: approval.approval_id, approved: true });
  expect((await finishedRun(submitted.workflow_id, temporalRunId)).status.name).toBe('COMPLETED');
  expect(await waitForFinish(stack.orchestrator, submitted.task_id)).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'approved after a reset' });
  expect(await verified(submitted.task_id)).toEqual([]);
});

it.each([
  ['with its signals reapplied', true],
  ['without its signals', false],
])('a decided task reset to before its approval (%s) asks again, and the second decision stands beside the first', async (_how, reapplySignals) => {
  const query = `reset my decided approval ${randomUUID()}`;
  stack.model.on(query, { content: 'decided once' });
  const submitted = await submitTask(stack.orchestrator, { query, require_approval: true });
  const approval = await pendingApprovalOf(stack.orchestrator, submitted.task_id);
  await approveTask(stack.orchestrator, { approval_id: approval.approval_id, approved: true, feedback: 'go' });
  expect(await waitForFinish(stack.orchestrator, submitted.task_id)).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'decided once' });
  const firstRun = (await findTask(stack.pool, submitted.task_id))!.runId;

  const temporalRunId = await resetTo(submitted.workflow_id, beforeApproval, reapplySignals);
  // Asked again: the first decision is not taken for the second.
  expect((await pendingApprovalOf(stack.orchestrator, submitted.task_id)).approval_id).toBe(approval.approval_id);
  await approveTask(stack.orchestrator, { approval_id: approval.approval_id, approved: false, feedback: 'not this time' });
  expect((await finishedRun(submitted.workflow_id, temporalRunId)).status.name).toBe('COMPLETED');
  expect(await waitForFinish(stack.orchestrator, submitted.task_id)).toMatchObject({ status: 'TASK_STATUS_CANCELLED' });
  expect(chatRequestsAbout(query)).toHaveLength(1);

  // Each run keeps the decision it took.
  const decided = async (runId: string) => decodeApprovalDecided((await readRunLog(stack.store, runId)).find((r) => r.key.endsWith('/decided'))!);
  expect(await decided(firstRun)).toMatchObject({ status: 'approved', feedback: 'go' });
  expect(await decided(resetRunIdOf(submitted.workflow_id, temporalRunId))).toMatchObject({ status: 'rejected', feedback: 'not this time' });
  expect(await verified(submitted.task_id)).toEqual([]);
});

it('a task reset after its session ended is cancelled by its new run, which asks the model nothing', async () => {
  const query = `reset me after my session ${randomUUID()}`;
  const sessionId = `reset-session-${randomUUID()}`;
  stack.model.on(query, { content: 'answered once' });
  const submitted = await submitTask(stack.orchestrator, { query, metadata: { session_id: sessionId } });
  expect(await waitForFinish(stack.orchestrator, submitted.task_id)).toMatchObject({ status: 'TASK_STATUS_COMPLETED' });
  await stack.store.endSession(sessionId, new Date());

  const temporalRunId = await resetTo(submitted.workflow_id, beforeModelStep(1));
  expect((await finishedRun(submitted.workflow_id, temporalRunId)).status.name).toBe('COMPLETED');
  expect(await waitForFinish(stack.orchestrator, submitted.task_id)).toMatchObject({
    status: 'TASK_STATUS_CANCELLED',
    error_message: 'the session ended before the reset run started',
  });
  expect(chatRequestsAbout(query)).toHaveLength(1);
  expect(await stack.store.loadRun(resetRunIdOf(submitted.workflow_id, temporalRunId))).toMatchObject({
    status: 'canceled',
    cancellationReason: 'session_ended',
  });
  expect(durable(await readStream(streaming, { workflow_id: submitted.workflow_id })).at(-1)!.type).toBe('WORKFLOW_CANCELLED');
  expect(await verified(submitted.task_id)).toEqual([]);
});

it('a finished COMPLEX task reset to before its last agent keeps the agents before it and runs that agent and the synthesis fresh', async () => {
  const prefix = `reset my plan ${randomUUID()}`;
  stack.model.on(`${prefix} gather alpha`, { content: 'alpha result' });
  stack.model.on(`${prefix} gather beta`, { content: 'beta result' });
  stack.model.on(`${prefix} combine`, { content: 'gamma result' }, { content: 'gamma again' });
  stack.model.on((text) => text.includes('Combine these results') && text.includes(prefix), { content: 'final answer' }, { content: 'final answer again' });
  const plan = {
    agent_tasks: [
      { agent_id: 'alpha', description: `${prefix} gather alpha` },
      { agent_id: 'beta', description: `${prefix} gather beta` },
      { agent_id: 'gamma', description: `${prefix} combine`, dependencies: ['alpha', 'beta'] },
    ],
  };
  const submitted = await submitTask(stack.orchestrator, { query: `${prefix} task`, manual_decomposition: plan });
  expect(await waitForFinish(stack.orchestrator, submitted.task_id)).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'final answer' });
  const firstRun = (await findTask(stack.pool, submitted.task_id))!.runId;

  const beforeGamma = (events: HistoryEvent[]) =>
    events.find((e) => e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId === `${submitted.workflow_id}/agent/gamma`)!
      .startChildWorkflowExecutionInitiatedEventAttributes!.workflowTaskCompletedEventId!;
  const temporalRunId = await resetTo(submitted.workflow_id, beforeGamma);
  expect((await finishedRun(submitted.workflow_id, temporalRunId)).status.name).toBe('COMPLETED');
  expect(await waitForFinish(stack.orchestrator, submitted.task_id)).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'final answer again' });
  expect(chatRequestsAbout(`${prefix} gather alpha`)).toHaveLength(1);
  expect(chatRequestsAbout(`${prefix} gather beta`)).toHaveLength(1);

  // The fresh agent has a run of its own under the new task run; the earlier agents stay under the first.
  const newRun = resetRunIdOf(submitted.workflow_id, temporalRunId);
  const linked = async (runId: string) =>
    (await readRunLog(stack.store, runId)).filter((r) => r.key.startsWith(`${runId}/link/`)).map((r) => r.key.slice(`${runId}/link/`.length));
  expect(await linked(newRun)).toEqual([`${submitted.workflow_id}/agent/gamma/reset/${temporalRunId}`]);
  expect((await linked(firstRun)).sort()).toEqual(['alpha', 'beta', 'gamma'].map((agent) => `${submitted.workflow_id}/agent/${agent}`));
  const details = await taskDetails(stack.orchestrator, submitted.task_id);
  expect(details.agent_statuses.map((a) => [a.agent_id, a.status, a.result])).toEqual([
    ['alpha', 'TASK_STATUS_COMPLETED', 'alpha result'],
    ['beta', 'TASK_STATUS_COMPLETED', 'beta result'],
    ['gamma', 'TASK_STATUS_COMPLETED', 'gamma again'],
  ]);
  expect(await verified(submitted.task_id)).toEqual([]);
});

it("a running COMPLEX task reset to before its running agent starts it again once the earlier run's has finished", async () => {
  const prefix = `reset my running plan ${randomUUID()}`;
  stack.model.on(`${prefix} gather alpha`, { content: 'alpha result' });
  stack.model.on(`${prefix} combine`, { content: 'gamma too slow', delayMs: 3_000 }, { content: 'gamma again' });
  stack.model.on((text) => text.includes('Combine these results') && text.includes(prefix), { content: 'final answer again' });
  const plan = {
    agent_tasks: [
      { agent_id: 'alpha', description: `${prefix} gather alpha` },
      { agent_id: 'gamma', description: `${prefix} combine`, dependencies: ['alpha'] },
    ],
  };
  const submitted = await submitTask(stack.orchestrator, { query: `${prefix} task`, manual_decomposition: plan });
  await until(() => chatRequestsAbout(`${prefix} combine`).length === 1);

  const gamma = `${submitted.workflow_id}/agent/gamma`;
  const beforeGamma = (events: HistoryEvent[]) =>
    events.find((e) => e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId === gamma)!.startChildWorkflowExecutionInitiatedEventAttributes!
      .workflowTaskCompletedEventId!;
  const temporalRunId = await resetTo(submitted.workflow_id, beforeGamma);
  expect((await finishedRun(submitted.workflow_id, temporalRunId)).status.name).toBe('COMPLETED');
  expect(await waitForFinish(stack.orchestrator, submitted.task_id)).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'final answer again' });
  // A reset does not stop the agents of the run it replaced: the earlier gamma finished in the earlier run, then the new run's ran.
  expect(await stack.store.loadRun(gamma)).toMatchObject({ status: 'completed' });
  expect(chatRequestsAbout(`${prefix} combine`)).toHaveLength(2);
  expect(await stack.store.loadRun(`${gamma}/reset/${temporalRunId}`)).toMatchObject({ status: 'completed' });
  expect((await taskDetails(stack.orchestrator, submitted.task_id)).agent_statuses.map((a) => [a.agent_id, a.status, a.result])).toEqual([
    ['alpha', 'TASK_STATUS_COMPLETED', 'alpha result'],
    ['gamma', 'TASK_STATUS_COMPLETED', 'gamma again'],
  ]);
  expect(await verified(submitted.task_id)).toEqual([]);
});

itLeavesEveryTaskVerified(() => stack.everyTask());
