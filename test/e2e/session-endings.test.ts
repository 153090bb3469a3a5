import { randomUUID } from 'node:crypto';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { unaryCall, type ServiceClient } from '../../protos/clients';
import { eventTypes, approveTask, pendingApprovalOf, pendingApprovals } from '../support/orchestration';
import { grpcError, submitTask, waitForFinish } from '../support/grpc';
import { startTestStack, type TestStack } from '../support/stack';
import { itLeavesEveryTaskVerified } from '../support/verification';

// When a session ends, its work ends with it: a task waiting in it is cancelled and its approval
// expires, and a tool call the model planned before the end is not made.

let stack: TestStack;
let sessions: ServiceClient<'session'>;
beforeAll(async () => {
  stack = await startTestStack();
  sessions = stack.client('session');
});
afterAll(() => stack.stop());

const newSession = async () => (await unaryCall(sessions, 'CreateSession', { user_id: 'ann' })).session_id;
const deleteSession = (sessionId: string) => unaryCall(sessions, 'DeleteSession', { session_id: sessionId });

it('DeleteSession cancels a task of the session that waits for approval, and the approval expires with it', async () => {
  const sessionId = await newSession();
  const query = `waiting in a session ${randomUUID()}`;
  stack.model.on(query, { content: 'never reached' });
  const task = await submitTask(stack.orchestrator, { query, require_approval: true, metadata: { session_id: sessionId } });
  const approval = await pendingApprovalOf(stack.orchestrator, task.task_id);

  expect(await deleteSession(sessionId)).toMatchObject({ success: true, message: 'session deleted; 1 unfinished task(s) cancelled' });
  expect(await waitForFinish(stack.orchestrator, task.task_id)).toMatchObject({
    status: 'TASK_STATUS_CANCELLED',
    error_message: expect.stringContaining(`session ${sessionId} was deleted`),
  });
  expect((await pendingApprovals(stack.orchestrator)).approvals.map((a) => a.approval_id)).not.toContain(approval.approval_id);
  const late = await grpcError(approveTask(stack.orchestrator, { approval_id: approval.approval_id, approved: true }));
  expect(late.code).toBe(GrpcStatus.FAILED_PRECONDITION);
  expect(stack.model.requests.filter((r) => JSON.stringify(r.body).includes(query))).toHaveLength(0);
});

it('a tool call planned before its session ended is not made, and the task ends cancelled', async () => {
  const sessionId = await newSession();
  const query = `plan a tool then lose the session ${randomUUID()}`;
  let ended: Promise<unknown> | undefined;
  // The session ends (as an expired one does in the store) while the model is still answering with
  // its tool call; nobody signals the task.
  stack.model.on(
    (text) => {
      if (!text.includes(query)) return false;
      ended ??= stack.store.endSession(sessionId, new Date());
      return true;
    },
    { toolCalls: [{ id: 'calc-late', name: 'calculator', arguments: '{"expression":"6*7"}' }], delayMs: 1_000 },
  );
  const task = await submitTask(stack.orchestrator, { query, metadata: { session_id: sessionId } });
  expect((await waitForFinish(stack.orchestrator, task.task_id)).status).toBe('TASK_STATUS_CANCELLED');
  await ended;
  const events = await stack.pool.query<{ event_type: string; message: string }>(
    `SELECT event_type, message FROM task_events WHERE workflow_id = $1 ORDER BY seq`,
    [task.workflow_id],
  );
  expect(events.rows.map((e) => e.event_type)).not.toContain('TOOL_INVOKED');
  expect(events.rows.find((e) => e.event_type === 'TOOL_OBSERVATION')?.message).toBe(`validation error: not run: session ${sessionId} has ended`);
  expect(await eventTypes(stack.pool, task.workflow_id)).toContain('WORKFLOW_CANCELLED');
});

itLeavesEveryTaskVerified(() => stack.everyTask());
