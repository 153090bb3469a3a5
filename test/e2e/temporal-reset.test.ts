import { randomUUID } from 'node:crypto';
import { temporal as proto } from '@temporalio/proto';
import { verifyTask } from '../../cli/verify';
import { getTaskStatus, submitTask, waitForFinish } from '../support/grpc';
import { approveTask, eventTypes, pendingApprovalOf, pendingApprovals, until } from '../support/orchestration';
import { startTestStack, type TestStack } from '../support/stack';
import { itLeavesEveryTaskVerified } from '../support/verification';

// A reset from the Web UI or `temporal workflow reset` re-drives a task's workflow from a point of
// its history, in a new run. Weft's store is the record of what happened: a step it recorded is
// returned as it was (the model and the tools are not asked again, nothing is charged twice), a
// step it never recorded runs, and the task ends once, with its stream and approvals consistent.

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());

const { ResetReapplyType } = proto.api.enums.v1;
type HistoryEvent = proto.api.history.v1.IHistoryEvent;
type EventId = NonNullable<HistoryEvent['eventId']>;
const chatRequestsAbout = (text: string) => stack.model.requests.filter((r) => r.path === '/v1/chat/completions' && JSON.stringify(r.body).includes(text));
const verified = (taskId: string) => verifyTask({ pool: stack.pool, store: stack.store, temporal: stack.temporal }, taskId);
const scheduledOf = (events: HistoryEvent[], activity: string) => events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === activity);

/** Resets the workflow to the workflow task `pick` chooses in its current history, as `temporal workflow reset --event-id` does; the new run's id. */
async function resetTo(workflowId: string, pick: (events: HistoryEvent[]) => EventId, reapplySignals = true): Promise<string> {
  const { events } = await stack.temporal.workflow.getHandle(workflowId).fetchHistory();
  const { runId } = await stack.temporal.workflowService.resetWorkflowExecution({
    namespace: 'default',
    workflowExecution: { workflowId },
    reason: 'operator reset',
    workflowTaskFinishEventId: pick(events ?? []),
    requestId: randomUUID(),
    // The Web UI's "reapply signals" choice: the default re-sends the signals received after the point.
    ...(reapplySignals ? {} : { resetReapplyType: ResetReapplyType.RESET_REAPPLY_TYPE_NONE }),
  });
  return runId!;
}

/** The workflow task that scheduled the nth model step: resetting to it runs that step again. */
const beforeModelStep = (n: number) => (events: HistoryEvent[]) => scheduledOf(events, 'runModelStep')[n - 1]!.activityTaskScheduledEventAttributes!.workflowTaskCompletedEventId!;

/** The workflow task that took the nth model step's reply: resetting to it decides again what follows it. */
const afterModelStep = (n: number) => (events: HistoryEvent[]) => {
  const scheduled = Number(scheduledOf(events, 'runModelStep')[n - 1]!.eventId);
  const done = events.findIndex((e) => Number(e.activityTaskCompletedEventAttributes?.scheduledEventId ?? 0) === scheduled);
  return events.slice(done).find((e) => e.workflowTaskCompletedEventAttributes)!.eventId!;
};

async function finishedRun(workflowId: string, runId: string) {
  const handle = stack.temporal.workflow.getHandle(workflowId, runId);
  await handle.result();
  return handle.describe();
}

it.each([
  ['before the second model step', beforeModelStep(2)],
  ['after the first model step', afterModelStep(1)],
])('a finished task reset %s completes again from what the store recorded, once', async (_point, pick) => {
  const query = `reset me ${randomUUID()}`;
  stack.model.on(query, { toolCalls: [{ id: 'calc-1', name: 'calculator', arguments: '{"expression":"6*7"}' }] }, { content: 'It is 42.' }, { content: 'a second answer' });
  const submitted = await submitTask(stack.orchestrator, { query });
  const before = await waitForFinish(stack.orchestrator, submitted.task_id);
  expect(before).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'It is 42.' });
  const eventsBefore = await eventTypes(stack.pool, submitted.workflow_id);

  const runId = await resetTo(submitted.workflow_id, pick);
  expect((await finishedRun(submitted.workflow_id, runId)).status.name).toBe('COMPLETED');

  // Nothing asked or charged again, nothing appended twice: the store's account stands.
  expect(chatRequestsAbout(query)).toHaveLength(2);
  const after = await getTaskStatus(stack.orchestrator, submitted.task_id);
  expect(after).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'It is 42.' });
  expect(after.metrics?.token_usage?.total_tokens).toBe(before.metrics?.token_usage?.total_tokens);
  expect(await eventTypes(stack.pool, submitted.workflow_id)).toEqual(eventsBefore);
  expect(await verified(submitted.task_id)).toEqual([]);
});

it('a task reset while it waits for approval waits again in the new run, and the approval decides it', async () => {
  const query = `reset my approval ${randomUUID()}`;
  stack.model.on(query, { content: 'approved after a reset' });
  const submitted = await submitTask(stack.orchestrator, { query, require_approval: true });
  const approval = await pendingApprovalOf(stack.orchestrator, submitted.task_id);

  const runId = await resetTo(submitted.workflow_id, (events) => scheduledOf(events, 'requestApproval')[0]!.activityTaskScheduledEventAttributes!.workflowTaskCompletedEventId!);
  // The reset ended the old run; the task is not ended with it.
  await until(async () => ((await stack.temporal.workflow.getHandle(submitted.workflow_id, runId).query('taskStatus')) as { status: string }).status === 'RUNNING' || undefined);
  expect((await getTaskStatus(stack.orchestrator, submitted.task_id)).status).toBe('TASK_STATUS_RUNNING');
  expect((await pendingApprovals(stack.orchestrator)).approvals.map((a) => a.approval_id)).toEqual(expect.arrayContaining([approval.approval_id]));
  // The task's stream says what happened.
  const note = await until(async () => (await stack.pool.query<{ message: string }>(`SELECT message FROM task_events WHERE workflow_id = $1 AND event_type = 'STATUS_UPDATE'`, [submitted.workflow_id])).rows[0]);
  expect(note.message).toContain(`run ${runId} carries the task on from the reset point`);

  await approveTask(stack.orchestrator, { approval_id: approval.approval_id, approved: true });
  expect((await finishedRun(submitted.workflow_id, runId)).status.name).toBe('COMPLETED');
  expect(await waitForFinish(stack.orchestrator, submitted.task_id)).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'approved after a reset' });
  expect(await verified(submitted.task_id)).toEqual([]);
});

it.each([
  ['with its signals reapplied', true],
  ['without its signals', false],
])('a decided task reset to before its approval (%s) applies the recorded decision again instead of waiting for a second one', async (_how, reapplySignals) => {
  const query = `reset my decided approval ${randomUUID()}`;
  stack.model.on(query, { content: 'decided once' });
  const submitted = await submitTask(stack.orchestrator, { query, require_approval: true });
  const approval = await pendingApprovalOf(stack.orchestrator, submitted.task_id);
  await approveTask(stack.orchestrator, { approval_id: approval.approval_id, approved: true, feedback: 'go' });
  expect(await waitForFinish(stack.orchestrator, submitted.task_id)).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'decided once' });
  const eventsBefore = await eventTypes(stack.pool, submitted.workflow_id);

  const runId = await resetTo(submitted.workflow_id, (events) => scheduledOf(events, 'requestApproval')[0]!.activityTaskScheduledEventAttributes!.workflowTaskCompletedEventId!, reapplySignals);
  expect((await finishedRun(submitted.workflow_id, runId)).status.name).toBe('COMPLETED');
  expect(await eventTypes(stack.pool, submitted.workflow_id)).toEqual(eventsBefore);
  expect(chatRequestsAbout(query)).toHaveLength(1);
  expect(await verified(submitted.task_id)).toEqual([]);
});

itLeavesEveryTaskVerified(() => stack.everyTask());
