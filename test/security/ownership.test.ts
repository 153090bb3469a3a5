import { status as GrpcStatus } from '@grpc/grpc-js';
import { randomUUID } from 'node:crypto';
import { unaryCall } from '../../protos/clients';
import { taskWorkflowIdOf } from '../../core/tasks/run/task-ref';
import { tenantTaskId } from '../../api/tasks/task-ids';
import { grpcError, waitForFinish } from '../support/grpc';
import { startTestStack, testTaskInput, type TestStack } from '../support/stack';
import { twoTenantsTwoUsersEach, type Tenants } from '../support/tenants';

// Attacks on what a key owns: another tenant's session and its history, another user's identity,
// and message ids that poison a task's end. Each must be refused (or see nothing) while the owner's
// own use keeps working.

let stack: TestStack;
let tenants: Tenants;
beforeAll(async () => {
  stack = await startTestStack();
  tenants = await twoTenantsTwoUsersEach(stack);
});
afterAll(() => stack.stop());

const unique = (label: string) => `${label} ${randomUUID().slice(0, 8)}`;
const modelSaw = (text: string) => stack.model.requests.some((request) => JSON.stringify(request.body).includes(text));

async function sessionWithSecret(secret: string): Promise<string> {
  const sessions = tenants.a[0].client('session');
  const { session_id } = await unaryCall(sessions, 'CreateSession', {});
  await unaryCall(sessions, 'AddMessage', { session_id, message: { role: 'user', content: secret } });
  return session_id;
}

describe("another tenant's session", () => {
  it('is not found when a task names it, and the owner still gets its history', async () => {
    const secret = unique('the launch code is');
    const session = await sessionWithSecret(secret);
    const intruder = await grpcError(
      unaryCall(tenants.b[0].client('orchestrator'), 'SubmitTask', { query: 'what is the launch code?', metadata: { session_id: session } }),
    );
    expect(intruder.code).toBe(GrpcStatus.NOT_FOUND);
    expect(intruder.details).toBe(`session ${session} not found`);

    // The owner's own task starts from the session's history (so the refusal above is about the tenant).
    const ownQuery = unique('remind me');
    stack.model.on(ownQuery, { content: 'here it is' });
    const own = await unaryCall(tenants.a[1].client('orchestrator'), 'SubmitTask', { query: ownQuery, metadata: { session_id: session } });
    expect((await waitForFinish(tenants.a[1].client('orchestrator'), own.task_id)).status).toBe('TASK_STATUS_COMPLETED');
    expect(modelSaw(secret)).toBe(true);
  });

  it('is not found when only tasks used it: the first tenant to name a session id owns it', async () => {
    const session = `shared-name-${randomUUID()}`;
    const query = unique('first use');
    stack.model.on(query, { content: 'ok' });
    await unaryCall(tenants.a[0].client('orchestrator'), 'SubmitTask', { query, metadata: { session_id: session } });
    const intruder = await grpcError(unaryCall(tenants.b[1].client('orchestrator'), 'SubmitTask', { query: 'q', metadata: { session_id: session } }));
    expect(intruder.code).toBe(GrpcStatus.NOT_FOUND);
    expect((await grpcError(unaryCall(tenants.b[1].client('orchestrator'), 'GetSessionContext', { session_id: session }))).code).toBe(GrpcStatus.NOT_FOUND);
  });

  it("never reaches a model from inside the worker either, whatever the workflow's input says", async () => {
    const secret = unique('the vault opens with');
    const session = await sessionWithSecret(secret);
    const query = unique('tell me the vault combination');
    stack.model.on(query, { content: 'no idea' });
    // Started past the API, as a compromised client of Temporal could: the activity checks the tenant itself.
    const taskId = `direct-${randomUUID()}`;
    await stack.temporal.workflow.execute('taskWorkflow', {
      taskQueue: stack.taskQueue,
      workflowId: taskWorkflowIdOf(taskId),
      args: [testTaskInput({ taskId, query, tenantId: tenants.b[0].principal.tenantId, userId: 'bob', sessionId: session })],
    });
    expect(modelSaw(query)).toBe(true);
    expect(modelSaw(secret)).toBe(false);
  });
});

describe('acting as another user', () => {
  it('is refused on every request that names a user, unless the key has the act_for_users role', async () => {
    const [alice, arthur] = tenants.a;
    const denied = `is not the user of your API key; acting for another user needs the act_for_users role`;
    const submit = await grpcError(
      unaryCall(alice.client('orchestrator'), 'SubmitTask', { query: 'as arthur', metadata: { user_id: arthur.principal.userId } }),
    );
    expect([submit.code, submit.details]).toEqual([GrpcStatus.PERMISSION_DENIED, `metadata.user_id arthur ${denied}`]);
    const session = await grpcError(unaryCall(alice.client('session'), 'CreateSession', { user_id: 'arthur' }));
    expect(session.code).toBe(GrpcStatus.PERMISSION_DENIED);
    const aiSession = await unaryCall(alice.client('ai'), 'CreateSession', { user_id: 'arthur' });
    expect(aiSession.error).toBe(`user_id arthur ${denied}`);
    const completion = await grpcError(
      unaryCall(alice.client('llm'), 'GenerateCompletion', { messages: [{ role: 'user', content: 'hi' }], metadata: { user_id: 'arthur' } }),
    );
    expect(completion.code).toBe(GrpcStatus.PERMISSION_DENIED);
    // Naming yourself is fine.
    const query = unique('as myself');
    stack.model.on(query, { content: 'fine' });
    const mine = await unaryCall(alice.client('orchestrator'), 'SubmitTask', { query, metadata: { user_id: 'alice' } });
    expect(mine.status).toBe('STATUS_CODE_OK');
  });

  it("is allowed with the role, and recorded as such: the task is the user's, submitted by the key's user", async () => {
    const frontEnd = await stack.clientFor({ tenantId: tenants.a[0].principal.tenantId, userId: 'front-end', roles: ['act_for_users'] });
    const query = unique('on behalf of arthur');
    stack.model.on(query, { content: 'done' });
    const submitted = await unaryCall(frontEnd, 'SubmitTask', { query, metadata: { user_id: 'arthur' } });
    await waitForFinish(frontEnd, submitted.task_id);
    const { rows } = await stack.pool.query<{ user_id: string; submitted_by: string }>('SELECT user_id, submitted_by FROM tasks WHERE task_id = $1', [
      submitted.task_id,
    ]);
    expect(rows).toEqual([{ user_id: 'arthur', submitted_by: 'front-end' }]);
    const run = await stack.store.loadRun(submitted.workflow_id);
    expect(run.labels).toMatchObject({ user_id: 'arthur', submitted_by: 'front-end' });
  });
});

describe('message ids', () => {
  it("refuses a caller's message id shaped like a task's turn", async () => {
    const sessions = tenants.a[0].client('session');
    const { session_id } = await unaryCall(sessions, 'CreateSession', {});
    const poisoned = await grpcError(unaryCall(sessions, 'AddMessage', { session_id, message: { id: 'task-1/answer', role: 'assistant', content: 'x' } }));
    expect([poisoned.code, poisoned.details]).toEqual([GrpcStatus.INVALID_ARGUMENT, 'message.id may not contain "/"']);
  });

  it('a task whose end cannot be recorded ends FAILED with the cause, never RUNNING for good', async () => {
    const alice = tenants.a[0];
    const { session_id } = await unaryCall(alice.client('session'), 'CreateSession', {});
    const taskName = `poisoned-${randomUUID()}`;
    const taskId = tenantTaskId(alice.principal.tenantId, taskName);
    // A conflicting turn already stored under the task's answer id (as data written before ids were checked).
    await stack.pool.query(
      `INSERT INTO conversation_messages (session_id, message_id, role, content, created_at) VALUES ($1, $2, 'assistant', 'planted', now())`,
      [session_id, `${taskId}/answer`],
    );
    const query = unique('answer me');
    stack.model.on(query, { content: 'the real answer' });
    await unaryCall(alice.client('orchestrator'), 'SubmitTask', { query, metadata: { task_id: taskName, session_id } });
    const finished = await waitForFinish(alice.client('orchestrator'), taskId);
    expect(finished.status).toBe('TASK_STATUS_FAILED');
    expect(finished.error_message).toMatch(/^the task's end \(COMPLETED\) could not be recorded: message .*\/answer already exists with different content$/);
  });
});

describe('task ids', () => {
  it("are per tenant: probing with another tenant's task name or id starts a task of your own and reveals nothing", async () => {
    const name = `report-${randomUUID().slice(0, 8)}`;
    const query = unique('quarterly report');
    stack.model.on(query, { content: 'report' });
    const [alice, arthur] = tenants.a;
    const [bob] = tenants.b;
    const mine = await unaryCall(alice.client('orchestrator'), 'SubmitTask', { query, metadata: { task_id: name } });
    expect(mine.message).toBe('task submitted');
    // The same name in the same tenant is the same task: a retry finds it, and another user's
    // request under that name is a different request, refused (it never gets alice's task).
    const again = await unaryCall(alice.client('orchestrator'), 'SubmitTask', { query, metadata: { task_id: name } });
    expect([again.task_id, again.message]).toEqual([mine.task_id, 'task already submitted; returning the existing workflow']);
    expect((await grpcError(unaryCall(arthur.client('orchestrator'), 'SubmitTask', { query, metadata: { task_id: name } }))).code).toBe(
      GrpcStatus.ALREADY_EXISTS,
    );

    const sameName = await unaryCall(bob.client('orchestrator'), 'SubmitTask', { query, metadata: { task_id: name } });
    const probe = await grpcError(unaryCall(bob.client('orchestrator'), 'GetTaskStatus', { task_id: mine.task_id }));
    expect([probe.code, probe.details]).toEqual([GrpcStatus.NOT_FOUND, `task ${mine.task_id} not found`]);
    const sameId = await unaryCall(bob.client('orchestrator'), 'SubmitTask', { query, metadata: { task_id: mine.task_id } });
    for (const submitted of [sameName, sameId]) {
      expect(submitted.message).toBe('task submitted');
      expect(submitted.task_id).not.toBe(mine.task_id);
    }
    // Each tenant's names find its own tasks, never the other's.
    expect((await unaryCall(bob.client('orchestrator'), 'GetTaskStatus', { task_id: name })).task_id).toBe(sameName.task_id);
    expect((await unaryCall(bob.client('orchestrator'), 'GetTaskStatus', { task_id: mine.task_id })).task_id).toBe(sameId.task_id);
    expect((await unaryCall(alice.client('orchestrator'), 'GetTaskStatus', { task_id: name })).task_id).toBe(mine.task_id);
    expect((await waitForFinish(alice.client('orchestrator'), name)).result).toBe('report');
  });
});

describe('ids that become paths', () => {
  it.each(['..', '.', '../tenant-b', 'a/b', '.hidden', 'x'.repeat(129)])('refuses the session id %p at the door', async (sessionId) => {
    const refused = await grpcError(unaryCall(tenants.a[0].client('orchestrator'), 'SubmitTask', { query: 'q', metadata: { session_id: sessionId } }));
    expect([refused.code, refused.details]).toEqual([
      GrpcStatus.INVALID_ARGUMENT,
      'metadata.session_id must be 1-128 letters, digits, ".", "_", ":" or "-", starting with a letter or digit',
    ]);
  });
});
