import { status as GrpcStatus } from '@grpc/grpc-js';
import { WorkflowFailedError } from '@temporalio/client';
import { RecordType } from '../../core/store';
import { findApproval } from '../../core/tasks/approvals';
import { grpcError, submitTask, waitForFinish } from '../support/grpc';
import { cancelTask, eventTypes, pendingApprovalOf, taskDetails, until } from '../support/orchestration';
import { submitWithNoWorker } from '../support/queued-tasks';
import { startTestStack, type TestStack } from '../support/stack';
import { itLeavesEveryTaskVerified, verifyFinishedTask } from '../support/verification';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());

const unique = (label: string) => `${label} ${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
const requested = (text: string) => () => stack.model.requests.some((r) => JSON.stringify(r.body).includes(text)) || undefined;
const recordsOf = async (runId: string) =>
  (await stack.store.listRunRecords(runId, '', 100)).records.map((r) => [r.type, JSON.parse(Buffer.from(r.payload).toString())]);

describe('cancellation', () => {
  it('CancelTask records the intent, aborts the running step, and ends with the same reason', async () => {
    const query = unique('a slow question');
    stack.model.on(query, { content: 'too late', delayMs: 20_000 });
    const submitted = await submitTask(stack.orchestrator, { query });
    await until(requested(query));
    expect(await cancelTask(stack.orchestrator, submitted.task_id, 'user changed their mind')).toMatchObject({ success: true });
    const status = await waitForFinish(stack.orchestrator, submitted.task_id, 15_000);
    expect(status).toMatchObject({ status: 'TASK_STATUS_CANCELLED', error_message: 'cancelled: user changed their mind' });
    expect(await stack.store.loadRun(submitted.workflow_id)).toMatchObject({ status: 'canceled', cancellationReason: 'user changed their mind' });
    const records = await recordsOf(submitted.workflow_id);
    expect(records.filter(([type]) => type === RecordType.CancellationIntent)).toEqual([
      [RecordType.CancellationIntent, { reason: 'user changed their mind' }],
    ]);
    expect(records.at(-1)).toEqual([
      RecordType.RunCompleted,
      { status: 'canceled', reason: 'user changed their mind', error: 'cancelled: user changed their mind' },
    ]);
    expect((await eventTypes(stack.pool, submitted.workflow_id)).at(-1)).toBe('WORKFLOW_CANCELLED');

    const again = await grpcError(cancelTask(stack.orchestrator, submitted.task_id, 'twice'));
    expect(again.code).toBe(GrpcStatus.FAILED_PRECONDITION);
    const unknown = await grpcError(cancelTask(stack.orchestrator, 'task-nobody-knows', 'x'));
    expect(unknown.code).toBe(GrpcStatus.NOT_FOUND);
  });

  it('cancels every running agent of a COMPLEX task, and their runs end too', async () => {
    const prefix = unique('cancel-dag');
    stack.model.on(`${prefix} slow one`, { content: 'never', delayMs: 20_000 });
    stack.model.on(`${prefix} slow two`, { content: 'never', delayMs: 20_000 });
    const submitted = await submitTask(stack.orchestrator, {
      query: `${prefix} task`,
      manual_decomposition: {
        agent_tasks: [
          { agent_id: 'one', description: `${prefix} slow one` },
          { agent_id: 'two', description: `${prefix} slow two` },
        ],
      },
    });
    await until(() => (requested(`${prefix} slow one`)() && requested(`${prefix} slow two`)()) || undefined);
    await cancelTask(stack.orchestrator, submitted.task_id, 'stop everything');
    const status = await waitForFinish(stack.orchestrator, submitted.task_id, 15_000);
    expect(status.status).toBe('TASK_STATUS_CANCELLED');
    for (const agent of ['one', 'two']) {
      const run = await stack.store.loadRun(`${submitted.workflow_id}/agent/${agent}`);
      expect(run.status).toBe('canceled');
      const description = await stack.temporal.workflow.getHandle(`${submitted.workflow_id}/agent/${agent}`).describe();
      expect(description.status.name).toBe('CANCELLED');
    }
    expect(await eventTypes(stack.pool, submitted.workflow_id)).toEqual(expect.arrayContaining(['AGENT_FAILED:one', 'AGENT_FAILED:two', 'WORKFLOW_CANCELLED']));
  });

  it('leaves no agent RUNNING, wherever in a COMPLEX task the cancel lands', async () => {
    // Agents with short steps, cancelled at a spread of moments: before they start, while they run,
    // between a finished agent and the next, and around the synthesis.
    const delays = [0, 50, 150, 300, 500, 800, 1_200, 1_700];
    const outcomes = await Promise.all(
      delays.map(async (delayMs) => {
        const prefix = unique(`race-${delayMs}`);
        for (const step of ['first', 'second', 'third']) stack.model.on(`${prefix} ${step}`, { content: `${step} done`, delayMs: 200 });
        stack.model.on(`${prefix} task`, { content: 'synthesis', delayMs: 200 });
        const submitted = await submitTask(stack.orchestrator, {
          query: `${prefix} task`,
          manual_decomposition: {
            agent_tasks: [
              { agent_id: 'first', description: `${prefix} first` },
              { agent_id: 'second', description: `${prefix} second`, dependencies: ['first'] },
              { agent_id: 'third', description: `${prefix} third` },
            ],
          },
        });
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        await cancelTask(stack.orchestrator, submitted.task_id, `race at ${delayMs} ms`).catch(() => undefined); // it may have finished
        await waitForFinish(stack.orchestrator, submitted.task_id, 30_000);
        const details = await taskDetails(stack.orchestrator, submitted.task_id);
        const running = details.agent_statuses.filter((agent) => agent.status === 'TASK_STATUS_RUNNING').map((agent) => agent.agent_id);
        const disagreements = await verifyFinishedTask({ pool: stack.pool, store: stack.store, temporal: stack.temporal }, submitted.task_id);
        return { delayMs, status: details.status, running, disagreements };
      }),
    );
    expect(outcomes.filter((outcome) => outcome.running.length > 0 || outcome.disagreements.length > 0)).toEqual([]);
    // The spread really cancelled some tasks mid-flight.
    expect(outcomes.filter((outcome) => outcome.status === 'TASK_STATUS_CANCELLED').length).toBeGreaterThan(0);
  }, 120_000);

  it('cancelling while an approval is pending leaves no approval pending', async () => {
    const submitted = await submitTask(stack.orchestrator, { query: unique('cancel while waiting'), require_approval: true });
    const pending = await pendingApprovalOf(stack.orchestrator, submitted.task_id);
    await cancelTask(stack.orchestrator, submitted.task_id, 'not needed');
    expect((await waitForFinish(stack.orchestrator, submitted.task_id)).status).toBe('TASK_STATUS_CANCELLED');
    expect(await findApproval(stack.pool, pending.approval_id)).toMatchObject({ status: 'expired', feedback: 'task cancelled' });
  });

  it('a workflow cancelled by the engine without a request records engine_canceled', async () => {
    const query = unique('cancelled from the web ui');
    stack.model.on(query, { content: 'never', delayMs: 20_000 });
    const submitted = await submitTask(stack.orchestrator, { query });
    await until(requested(query));
    const handle = stack.temporal.workflow.getHandle(submitted.workflow_id);
    await handle.cancel();
    await expect(handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
    expect((await handle.describe()).status.name).toBe('CANCELLED');
    expect(await stack.store.loadRun(submitted.workflow_id)).toMatchObject({ status: 'canceled', cancellationReason: '' });
    const records = await recordsOf(submitted.workflow_id);
    expect(records.some(([type]) => type === RecordType.CancellationIntent)).toBe(false);
    expect(records.at(-1)).toEqual([RecordType.RunCompleted, { status: 'canceled', reason: 'engine_canceled', error: 'cancelled' }]);
  });
});

describe("cancellation before the first model step, which records a STANDARD task's start", () => {
  /** A task no worker has taken yet, QUEUED; `startWorker` starts one on its queue. */
  async function queuedTask(query: string) {
    const queued = await submitWithNoWorker(stack, query);
    expect((await taskDetails(stack.orchestrator, queued.submitted.task_id)).status).toBe('TASK_STATUS_QUEUED');
    return queued;
  }

  it('CancelTask while the task waits for a worker: the task starts and ends cancelled, in the store as in Temporal', async () => {
    const query = unique('cancelled while queued');
    stack.model.on(query, { content: 'an answer nobody wants', delayMs: 2_000 });
    const { submitted, startWorker } = await queuedTask(query);
    expect(await cancelTask(stack.orchestrator, submitted.task_id, 'asked too early')).toMatchObject({ success: true });
    const worker = await startWorker();
    try {
      const status = await waitForFinish(stack.orchestrator, submitted.task_id, 15_000);
      expect(status).toMatchObject({ status: 'TASK_STATUS_CANCELLED', error_message: 'cancelled: asked too early' });
      expect(await stack.store.loadRun(submitted.workflow_id)).toMatchObject({ status: 'canceled', cancellationReason: 'asked too early' });
      const events = await eventTypes(stack.pool, submitted.workflow_id);
      expect([events[0], events.at(-1)]).toEqual(['WORKFLOW_STARTED', 'WORKFLOW_CANCELLED']);
      expect((await stack.temporal.workflow.getHandle(submitted.workflow_id).result()).status).toBe('CANCELLED');
      expect(await verifyFinishedTask({ pool: stack.pool, store: stack.store, temporal: stack.temporal }, submitted.task_id)).toEqual([]);
    } finally {
      await worker.stop();
    }
  });

  it('a workflow cancelled in Temporal before any worker took it: the store records the task cancelled by the engine, and no model is asked', async () => {
    const query = unique('engine-cancelled while queued');
    const { submitted, startWorker } = await queuedTask(query);
    const handle = stack.temporal.workflow.getHandle(submitted.workflow_id);
    await handle.cancel();
    const worker = await startWorker();
    try {
      await expect(handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
      expect((await handle.describe()).status.name).toBe('CANCELLED');
      expect(await taskDetails(stack.orchestrator, submitted.task_id)).toMatchObject({ status: 'TASK_STATUS_CANCELLED' });
      const records = await recordsOf(submitted.workflow_id);
      expect(records.map(([type]) => type)).toEqual([RecordType.RunStarted, RecordType.RunCompleted]);
      expect(records.at(-1)).toEqual([RecordType.RunCompleted, { status: 'canceled', reason: 'engine_canceled', error: 'cancelled' }]);
      expect(requested(query)()).toBeUndefined();
      expect(await verifyFinishedTask({ pool: stack.pool, store: stack.store, temporal: stack.temporal }, submitted.task_id)).toEqual([]);
    } finally {
      await worker.stop();
    }
  });
});

itLeavesEveryTaskVerified(() => stack.everyTask());
