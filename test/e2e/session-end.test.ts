import { randomUUID } from 'node:crypto';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { RecordType } from '../../core/store';
import type { taskWorkflow } from '../../workflows/task-workflow';
import { startTestStack, testTaskInput, type TestStack } from '../support/stack';
import { itLeavesEveryTaskVerified } from '../support/verification';
import { testCatalog } from '../support/test-catalog';
import { grpcError, submitTask, waitForFinish } from '../support/grpc';
import { until as eventually } from '../support/orchestration';

let stack: TestStack;
beforeAll(async () => {
  // One attempt per model step: a failed call fails the step, and Temporal's retry of the step is
  // where the session's end is seen.
  stack = await startTestStack({ catalog: (baseURL) => testCatalog(baseURL, (doc) => Object.assign(doc.resilience, { max_attempts: 1 })) });
});
afterAll(() => stack.stop());

const recordsOf = async (runId: string) =>
  (await stack.store.listRunRecords(runId, '', 100)).records.map((r) => [r.type, JSON.parse(Buffer.from(r.payload).toString())]);

async function until(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('a session that ends', () => {
  it('refuses a task submitted into it, and stops one that starts after it ended: run_started and a canceled run_completed, no model call', async () => {
    const sessionId = `sess-ended-${Date.now()}`;
    await stack.store.createSession(sessionId, new Date());
    await stack.store.endSession(sessionId, new Date());
    const refused = await grpcError(submitTask(stack.orchestrator, { query: 'never answered', metadata: { session_id: sessionId } }));
    expect([refused.code, refused.details]).toEqual([GrpcStatus.NOT_FOUND, `session ${sessionId} has ended`]);

    // A submit that passed the door just before the session ended: the workflow starts after it.
    const input = testTaskInput({ taskId: `ended-${randomUUID()}`, query: 'never answered', sessionId, tenantId: stack.principal.tenantId, userId: 'tester' });
    await stack.temporal.workflow.start<typeof taskWorkflow>('taskWorkflow', { workflowId: input.taskId, taskQueue: stack.taskQueue, args: [input] });
    // Looked up once the workflow has indexed the task.
    const status = await eventually(() => waitForFinish(stack.orchestrator, input.taskId).catch(() => undefined));
    expect(status.status).toBe('TASK_STATUS_CANCELLED');
    expect(await recordsOf(input.taskId)).toEqual([
      [RecordType.RunStarted, expect.any(Object)],
      [RecordType.RunCompleted, { status: 'canceled', reason: 'session_ended' }],
    ]);
    expect(stack.model.requests.some((r) => JSON.stringify(r.body).includes('never answered'))).toBe(false);
  });

  it('stops a running task before its next step, recording session_ended as an explicit cancellation', async () => {
    const sessionId = `sess-mid-${Date.now()}`;
    // The first model attempt fails retryably; the session ends before the retry.
    stack.model.on('ended while running', { status: 503, content: 'busy' }, { content: 'too late' });
    const submitted = await submitTask(stack.orchestrator, { query: 'ended while running', metadata: { session_id: sessionId } });
    await until(() => stack.model.requests.some((r) => JSON.stringify(r.body).includes('ended while running')));
    await stack.store.endSession(sessionId, new Date());

    const status = await waitForFinish(stack.orchestrator, submitted.task_id);
    expect(status.status).toBe('TASK_STATUS_CANCELLED');
    const run = await stack.store.loadRun(submitted.workflow_id);
    expect(run).toMatchObject({ status: 'canceled', cancellationReason: 'session_ended' });
    // The failed step stored nothing: a step's messages are stored together with its reply.
    expect((await recordsOf(submitted.workflow_id)).map(([type]) => type)).toEqual([
      RecordType.RunStarted,
      RecordType.CancellationIntent,
      RecordType.RunCompleted,
    ]);
    expect(stack.model.requests.filter((r) => JSON.stringify(r.body).includes('ended while running'))).toHaveLength(1);
  });
});

itLeavesEveryTaskVerified(() => stack.everyTask());
