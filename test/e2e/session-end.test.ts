import { RecordType } from '../../core/store';
import { startTestStack, type TestStack } from '../support/stack';
import { itLeavesEveryTaskVerified } from '../support/verification';
import { testCatalog } from '../support/test-catalog';
import { submitTask, waitForFinish } from '../support/grpc';

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
  it('stops a task submitted into it at its start: run_started and a canceled run_completed, no model call', async () => {
    const sessionId = `sess-ended-${Date.now()}`;
    await stack.store.createSession(sessionId, new Date());
    await stack.store.endSession(sessionId, new Date());
    const submitted = await submitTask(stack.orchestrator, { query: 'never answered', metadata: { session_id: sessionId } });
    const status = await waitForFinish(stack.orchestrator, submitted.task_id);
    expect(status.status).toBe('TASK_STATUS_CANCELLED');
    expect(await recordsOf(submitted.workflow_id)).toEqual([
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
