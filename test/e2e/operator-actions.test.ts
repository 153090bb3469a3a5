import { status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import { createStreamingClient } from '../../protos/clients';
import type { TaskUpdate__Output } from '../../protos/generated/shannon/orchestrator/TaskUpdate';
import type { taskWorkflow } from '../../workflows/task-workflow';
import { approvalDecisionSignal, approvalDecisionUpdate, type ApprovalDecision } from '../../workflows/messages';
import { getTaskStatus, grpcError, submitTask } from '../support/grpc';
import { approveTask, pendingApprovalOf, pendingApprovals, until } from '../support/orchestration';
import { submitWithNoWorker } from '../support/queued-tasks';
import { startTestStack, testTaskInput, type TestStack } from '../support/stack';
import { itLeavesEveryTaskVerified, verifyFinishedTask } from '../support/verification';

// Temporal's own tools are user interfaces: what an operator does to a task's workflow from the Web
// UI or the CLI must leave Weft's store consistent. Terminating a waiting task, or letting Temporal
// time it out, ends it in the store with the engine's provenance: its status, its final event (so
// open streams end), its approvals expired, and the run's record.

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());

/** What `weft verify` finds wrong with a task (nothing, when Temporal and the store agree). */
const verified = (taskId: string) => verifyFinishedTask({ pool: stack.pool, store: stack.store, temporal: stack.temporal }, taskId);
const unique = (label: string) => `${label} ${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;

/** Every update of the task's stream until it ends, and how it ended. */
function follow(workflowId: string): Promise<{ types: string[]; ended: 'end' | string }> {
  const client = createStreamingClient(`127.0.0.1:${stack.api.port}`, { apiKey: stack.apiKey });
  const call = client.StreamTaskExecution({ workflow_id: workflowId });
  const types: string[] = [];
  return new Promise((resolve) => {
    call.on('data', (update: TaskUpdate__Output) => types.push(update.type));
    call.on('end', () => resolve({ types, ended: 'end' }));
    call.on('error', (err: ServiceError) => resolve({ types, ended: err.details }));
  }).finally(() => client.close()) as Promise<{ types: string[]; ended: 'end' | string }>;
}

it('a task terminated in Temporal while it waits for approval is ended in the store: status, stream, approval and run agree', async () => {
  const query = unique('terminate me');
  const submitted = await submitTask(stack.orchestrator, { query, require_approval: true });
  const approval = await pendingApprovalOf(stack.orchestrator, submitted.task_id);
  const stream = follow(submitted.workflow_id);

  await stack.temporal.workflow.getHandle(submitted.workflow_id).terminate('operator pressed Terminate');

  const status = await until(async () => {
    const now = await getTaskStatus(stack.orchestrator, submitted.task_id);
    return now.status === 'TASK_STATUS_RUNNING' ? undefined : now;
  }, 15_000);
  expect(status).toMatchObject({ status: 'TASK_STATUS_CANCELLED', error_message: 'terminated in Temporal' });
  const ended = await stream;
  expect(ended.ended).toBe('end');
  expect(ended.types.at(-1)).toBe('WORKFLOW_CANCELLED');
  expect((await pendingApprovals(stack.orchestrator)).approvals.map((a) => a.approval_id)).not.toContain(approval.approval_id);
  const late = await grpcError(approveTask(stack.orchestrator, { approval_id: approval.approval_id, approved: true }));
  expect([late.code, late.details]).toEqual([GrpcStatus.FAILED_PRECONDITION, `approval ${approval.approval_id} is already expired`]);
  expect(await stack.store.loadRun(submitted.workflow_id)).toMatchObject({ status: 'canceled', cancellationReason: 'engine_terminated' });
  expect(await verified(submitted.task_id)).toEqual([]);
});

it('a task Temporal times out is ended in the store as TIMEOUT', async () => {
  const input = testTaskInput({
    taskId: `timeout-${Date.now()}`,
    query: unique('time me out'),
    requireApproval: true,
    tenantId: stack.principal.tenantId,
    userId: 'tester',
  });
  const handle = await stack.temporal.workflow.start<typeof taskWorkflow>('taskWorkflow', {
    workflowId: input.taskId,
    taskQueue: stack.taskQueue,
    args: [input],
    workflowExecutionTimeout: '3 seconds',
  });
  await pendingApprovalOf(stack.orchestrator, input.taskId);
  const status = await until(async () => {
    const now = await getTaskStatus(stack.orchestrator, input.taskId);
    return now.status === 'TASK_STATUS_RUNNING' ? undefined : now;
  }, 20_000);
  expect(status).toMatchObject({ status: 'TASK_STATUS_TIMEOUT', error_message: 'the workflow timed out in Temporal' });
  expect((await handle.describe()).status.name).toBe('TIMED_OUT');
  expect(await stack.store.loadRun(input.taskId)).toMatchObject({ status: 'canceled', cancellationReason: 'engine_timed_out' });
  expect(await verified(input.taskId)).toEqual([]);
});

it('an approval decided by Temporal Update refuses what cannot apply, with the reason, and applies a valid decision', async () => {
  const query = unique('decide me by update');
  stack.model.on(query, { content: 'decided by update' });
  const submitted = await submitTask(stack.orchestrator, { query, require_approval: true });
  const approval = await pendingApprovalOf(stack.orchestrator, submitted.task_id);
  const handle = stack.temporal.workflow.getHandle(submitted.workflow_id);
  const refusal = (decision: unknown) =>
    handle.executeUpdate(approvalDecisionUpdate, { args: [decision as ApprovalDecision] }).then(
      () => 'accepted',
      (err: Error) => (err.cause instanceof Error ? err.cause.message : err.message),
    );
  expect(await refusal({ approved: true })).toBe('approvalId is required, e.g. {"approvalId": "<id>", "approved": true}');
  expect(await refusal({ approvalId: approval.approval_id, approved: 'yes' })).toBe('approved must be true or false');
  expect(await refusal({ approvalId: 'no-such-approval', approved: true })).toBe(
    'approval no-such-approval is not pending in this workflow (unknown, decided or expired)',
  );
  // A signal cannot be refused: the one it could not apply shows on the task's stream, with the reason.
  await handle.signal(approvalDecisionSignal, { approved: true } as unknown as ApprovalDecision);
  const ignored = await until(async () => {
    const { rows } = await stack.pool.query<{ message: string }>(`SELECT message FROM task_events WHERE workflow_id = $1 AND event_type = 'ERROR_OCCURRED'`, [
      submitted.workflow_id,
    ]);
    return rows[0];
  });
  expect(ignored.message).toBe('an approval decision was ignored: approvalId is required, e.g. {"approvalId": "<id>", "approved": true}');
  // Refused updates and ignored signals leave the approval pending; a valid update is applied.
  expect((await pendingApprovals(stack.orchestrator)).approvals.map((a) => a.approval_id)).toContain(approval.approval_id);
  expect(await refusal({ approvalId: approval.approval_id, approved: true, decidedBy: 'ops-update' })).toBe('accepted');
  const finished = await until(async () => {
    const now = await getTaskStatus(stack.orchestrator, submitted.task_id);
    return now.status === 'TASK_STATUS_RUNNING' ? undefined : now;
  });
  expect(finished).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'decided by update' });
  // The audit says how the decision came.
  const { rows } = await stack.pool.query<{ decided_by: string; decided_via: string }>('SELECT decided_by, decided_via FROM approvals WHERE approval_id = $1', [
    approval.approval_id,
  ]);
  expect(rows).toEqual([{ decided_by: 'ops-update', decided_via: 'update' }]);
  expect(await refusal({ approvalId: approval.approval_id, approved: true })).not.toBe('accepted');
  expect(await verified(submitted.task_id)).toEqual([]);
});

it('a task terminated before any worker took it is reported as Temporal ended it, not QUEUED for good', async () => {
  // No worker polls the task's queue: the workflow never records its start.
  const { submitted } = await submitWithNoWorker(stack, unique('never started'));
  expect((await getTaskStatus(stack.orchestrator, submitted.task_id)).status).toBe('TASK_STATUS_QUEUED');
  await stack.temporal.workflow.getHandle(submitted.workflow_id).terminate('nobody will run it');
  expect(await getTaskStatus(stack.orchestrator, submitted.task_id)).toMatchObject({
    status: 'TASK_STATUS_CANCELLED',
    error_message: 'ended in Temporal (terminated) before it started',
  });
});

itLeavesEveryTaskVerified(() => stack.everyTask());
