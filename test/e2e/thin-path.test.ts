import { status as GrpcStatus } from '@grpc/grpc-js';
import { RecordType, encodePayload } from '../../core/store';
import { assistantText, buildMessagesFromRunLog, userText } from '../../core/transcript';
import { startTestStack, TEST_MODEL, type TestStack } from '../support/stack';
import { itLeavesEveryTaskVerified } from '../support/verification';
import { getTaskStatus, grpcError, submitTask, waitForFinish } from '../support/grpc';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack({ maxQueryBytes: 1024 });
});

afterAll(async () => {
  await stack.stop();
});

describe('a STANDARD task through the real API, Temporal and Postgres', () => {
  it('completes with the model answer, token usage, store records and searchable attributes', async () => {
    stack.model.on('capital of France', {
      content: 'Paris is the capital of France.',
      usage: { prompt_tokens: 12, completion_tokens: 7 },
    });

    const submitted = await submitTask(stack.orchestrator, {
      metadata: { user_id: 'user-123', session_id: `sess-${Date.now()}` },
      query: 'What is the capital of France?',
    });
    expect(submitted.status).toBe('STATUS_CODE_OK');
    expect(submitted.task_id).toMatch(/^task-/);
    expect(submitted.workflow_id).toBe(submitted.task_id);

    const status = await waitForFinish(stack.orchestrator, submitted.task_id);
    expect(status.status).toBe('TASK_STATUS_COMPLETED');
    expect(status.progress).toBe(1);
    expect(status.result).toBe('Paris is the capital of France.');
    expect(status.metrics?.token_usage).toMatchObject({
      prompt_tokens: 12,
      completion_tokens: 7,
      total_tokens: 19,
      model: TEST_MODEL,
    });
    expect(status.metrics?.mode).toBe('EXECUTION_MODE_STANDARD');

    // The model saw the user's query through the real openai client.
    const chat = stack.model.requests.find((r) => r.path === '/v1/chat/completions');
    expect(chat?.body).toMatchObject({ model: TEST_MODEL, messages: [{ role: 'user', content: 'What is the capital of France?' }] });

    // The run's start and terminal records are in Postgres, in order.
    const page = await stack.store.listRunRecords(submitted.workflow_id, '', 10);
    expect(page.records.map((r) => r.type)).toEqual([
      RecordType.RunStarted,
      RecordType.TranscriptSeeded,
      RecordType.TranscriptAppended,
      RecordType.RunCompleted,
    ]);
    expect(Buffer.from(page.records[3]!.payload)).toEqual(Buffer.from(encodePayload({ status: 'completed' })));
    // The run log rebuilds exactly what the model saw and said.
    expect(await buildMessagesFromRunLog(stack.store, submitted.workflow_id)).toEqual([
      userText('What is the capital of France?'),
      assistantText('Paris is the capital of France.'),
    ]);
    const run = await stack.store.loadRun(submitted.workflow_id);
    expect(run.status).toBe('completed');

    // Operators find it by search attribute (visibility is eventually consistent).
    const query = `WorkflowId = "${submitted.workflow_id}" AND WeftTaskStatus = "COMPLETED" AND WeftUserId = "user-123"`;
    let found: string[] = [];
    for (let attempt = 0; attempt < 50 && found.length === 0; attempt++) {
      found = [];
      for await (const wf of stack.temporal.workflow.list({ query })) found.push(wf.workflowId);
      if (found.length === 0) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(found).toEqual([submitted.workflow_id]);
  });

  it('returns the same workflow when the same task id is submitted twice', async () => {
    stack.model.on('idempotent submit', { content: 'once' });
    const taskId = `task-idem-${Date.now()}`;
    const first = await submitTask(stack.orchestrator, { metadata: { task_id: taskId }, query: 'idempotent submit' });
    const second = await submitTask(stack.orchestrator, { metadata: { task_id: taskId }, query: 'idempotent submit' });
    expect(second.workflow_id).toBe(first.workflow_id);
    expect(second.message).toMatch(/already submitted/);
    // The same id with another request is not the same task: refused, never silently the earlier one.
    const different = await grpcError(submitTask(stack.orchestrator, { metadata: { task_id: taskId }, query: 'another question' }));
    expect([different.code, different.details]).toEqual([
      GrpcStatus.ALREADY_EXISTS,
      `this task id was already submitted with a different request (task ${first.task_id}); resubmit the same request, or use another task id`,
    ]);
    await waitForFinish(stack.orchestrator, taskId);
    const calls = stack.model.requests.filter((r) => JSON.stringify(r.body).includes('idempotent submit'));
    expect(calls).toHaveLength(1);
  });

  it('records a failed task when the model keeps refusing the request', async () => {
    stack.model.on('provider rejects this', { status: 400, content: 'bad request from provider' });
    const submitted = await submitTask(stack.orchestrator, { query: 'provider rejects this' });
    const status = await waitForFinish(stack.orchestrator, submitted.task_id);
    expect(status.status).toBe('TASK_STATUS_FAILED');
    expect(status.error_message).toMatch(/400/);
    const run = await stack.store.loadRun(submitted.workflow_id);
    expect(run.status).toBe('failed');
  });
});

describe('bad input', () => {
  it('refuses a missing query with INVALID_ARGUMENT', async () => {
    const err = await grpcError(submitTask(stack.orchestrator, { metadata: { user_id: 'u' } }));
    expect(err.code).toBe(GrpcStatus.INVALID_ARGUMENT);
    expect(err.details).toBe('query is required');
  });

  it('refuses a blank query with INVALID_ARGUMENT', async () => {
    const err = await grpcError(submitTask(stack.orchestrator, { query: '   ' }));
    expect(err.code).toBe(GrpcStatus.INVALID_ARGUMENT);
  });

  it('refuses an oversized query with INVALID_ARGUMENT naming the limit', async () => {
    const err = await grpcError(submitTask(stack.orchestrator, { query: 'x'.repeat(2048) }));
    expect(err.code).toBe(GrpcStatus.INVALID_ARGUMENT);
    expect(err.details).toBe('query is 2048 bytes; the limit is 1024');
  });

  it('refuses a malformed task id and a negative budget', async () => {
    const badId = await grpcError(submitTask(stack.orchestrator, { query: 'q', metadata: { task_id: '../etc' } }));
    expect(badId.code).toBe(GrpcStatus.INVALID_ARGUMENT);
    expect(badId.details).toMatch(/task_id/);
    const badBudget = await grpcError(submitTask(stack.orchestrator, { query: 'q', metadata: { token_budget: -1 } }));
    expect(badBudget.code).toBe(GrpcStatus.INVALID_ARGUMENT);
  });

  it('answers NOT_FOUND for an unknown task and INVALID_ARGUMENT for a missing id', async () => {
    const unknown = await grpcError(getTaskStatus(stack.orchestrator, 'task-does-not-exist'));
    expect(unknown.code).toBe(GrpcStatus.NOT_FOUND);
    expect(unknown.details).toBe('task task-does-not-exist not found');
    const missing = await grpcError(getTaskStatus(stack.orchestrator, ''));
    expect(missing.code).toBe(GrpcStatus.INVALID_ARGUMENT);
    expect(missing.details).toBe('task_id is required');
  });
});

itLeavesEveryTaskVerified(() => stack.everyTask());
