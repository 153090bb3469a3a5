import { execFileSync } from 'node:child_process';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { ensureTemporalCli } from '../../infra/temporal-dev-server';
import { findApproval, insertPendingApproval } from '../../core/tasks/approvals';
import { grpcError, submitTask, waitForFinish } from '../support/grpc';
import { approveTask, eventTypes, pendingApprovalOf, pendingApprovals, until } from '../support/orchestration';
import { startTestStack, type TestStack } from '../support/stack';
import { itLeavesEveryTaskVerified } from '../support/verification';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());

const unique = (label: string) => `${label} ${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
const requestsMatching = (text: string) => stack.model.requests.filter((r) => JSON.stringify(r.body).includes(text));

describe('human approval', () => {
  it('waits for approval, lists it as pending, and continues when approved', async () => {
    const query = unique('approve me');
    stack.model.on(query, { content: 'approved answer' });
    const submitted = await submitTask(stack.orchestrator, {
      query,
      require_approval: true,
      metadata: { user_id: 'dana', session_id: `s-${query.replace(/\W+/g, '-')}` },
    });
    const pending = await pendingApprovalOf(stack.orchestrator, submitted.task_id);
    expect(pending).toMatchObject({ workflow_id: submitted.workflow_id, query, reason: 'the request requires approval' });
    expect(JSON.parse(pending.proposed_action)).toEqual({ mode: 'STANDARD', query });
    expect((await pendingApprovals(stack.orchestrator, { user_id: 'dana' })).approvals.map((a) => a.approval_id)).toContain(pending.approval_id);
    expect((await pendingApprovals(stack.orchestrator, { user_id: 'somebody-else' })).approvals.map((a) => a.approval_id)).not.toContain(pending.approval_id);
    // Awaiting approval is one search-attribute query away in the Web UI.
    await until(async () => {
      for await (const wf of stack.temporal.workflow.list({ query: `WeftAwaitingApproval = true AND WorkflowId = "${submitted.workflow_id}"` })) return wf;
      return undefined;
    });
    expect(requestsMatching(query)).toHaveLength(0);

    expect(await approveTask(stack.orchestrator, { approval_id: pending.approval_id, approved: true, approved_by: 'alice', feedback: 'ok' })).toMatchObject({
      success: true,
    });
    const status = await waitForFinish(stack.orchestrator, submitted.task_id);
    expect(status).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'approved answer' });
    expect(await findApproval(stack.pool, pending.approval_id)).toMatchObject({ status: 'approved', decidedBy: 'tester (as alice)', feedback: 'ok' });
    expect(await eventTypes(stack.pool, submitted.workflow_id)).toEqual([
      'WORKFLOW_STARTED',
      'APPROVAL_REQUESTED',
      'APPROVAL_DECISION',
      'AGENT_STARTED:main',
      'AGENT_COMPLETED:main',
      'WORKFLOW_COMPLETED',
    ]);
    const log = (await stack.store.listRunRecords(submitted.workflow_id, '', 50)).records.map((r) => r.type);
    expect(log).toEqual(expect.arrayContaining(['approval_requested', 'approval_decided']));

    // A decision for an approval already decided, or unknown, is refused.
    const again = await grpcError(approveTask(stack.orchestrator, { approval_id: pending.approval_id, approved: false }));
    expect(again.code).toBe(GrpcStatus.FAILED_PRECONDITION);
    expect(again.details).toBe(`approval ${pending.approval_id} is already approved`);
    const unknown = await grpcError(approveTask(stack.orchestrator, { approval_id: 'nope', approved: true }));
    expect(unknown.code).toBe(GrpcStatus.NOT_FOUND);
  });

  it('approve with modified_action runs the edited plan, validated like the original', async () => {
    const prefix = unique('modplan');
    stack.model.on(`${prefix} edited step`, { content: 'edited result' });
    const submitted = await submitTask(stack.orchestrator, {
      query: `${prefix} task`,
      require_approval: true,
      manual_decomposition: { agent_tasks: [{ agent_id: 'original', description: `${prefix} original step` }] },
    });
    const pending = await pendingApprovalOf(stack.orchestrator, submitted.task_id);
    const invalid = await grpcError(
      approveTask(stack.orchestrator, {
        approval_id: pending.approval_id,
        approved: true,
        modified_action: '{"agents":[{"id":"x","description":"d","tools":["nope"]}]}',
      }),
    );
    expect(invalid.code).toBe(GrpcStatus.INVALID_ARGUMENT);
    expect(invalid.details).toMatch(/unknown tool nope/);
    const edited = JSON.stringify({ agents: [{ id: 'edited', description: `${prefix} edited step` }] });
    await approveTask(stack.orchestrator, { approval_id: pending.approval_id, approved: true, modified_action: edited, approved_by: 'bob' });
    const status = await waitForFinish(stack.orchestrator, submitted.task_id);
    expect(status).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'edited result' });
    expect(requestsMatching(`${prefix} original step`)).toHaveLength(0);
    expect(await findApproval(stack.pool, pending.approval_id)).toMatchObject({ status: 'approved', modifiedAction: edited });
  });

  it('reject ends the task CANCELLED with the feedback and the approval_rejected provenance', async () => {
    const query = unique('reject me');
    const submitted = await submitTask(stack.orchestrator, { query, require_approval: true });
    const pending = await pendingApprovalOf(stack.orchestrator, submitted.task_id);
    await approveTask(stack.orchestrator, { approval_id: pending.approval_id, approved: false, feedback: 'too risky', approved_by: 'carol' });
    const status = await waitForFinish(stack.orchestrator, submitted.task_id);
    expect(status).toMatchObject({ status: 'TASK_STATUS_CANCELLED', error_message: 'rejected: too risky' });
    expect(await stack.store.loadRun(submitted.workflow_id)).toMatchObject({ status: 'canceled', cancellationReason: 'approval_rejected' });
    expect(await findApproval(stack.pool, pending.approval_id)).toMatchObject({ status: 'rejected', feedback: 'too risky', decidedBy: 'tester (as carol)' });
  });

  it('an interrupted call whose outcome is unknown takes {"run_again": true} through the door, and nothing else as a modified action', async () => {
    const query = unique('outcome review');
    stack.model.on(query, { content: 'reviewed' });
    const submitted = await submitTask(stack.orchestrator, { query, require_approval: true });
    const pending = await pendingApprovalOf(stack.orchestrator, submitted.task_id);
    // The approval a worker's crash mid-call asks (test/e2e/side-effects.test.ts makes one for real).
    const approval = await findApproval(stack.pool, pending.approval_id);
    const review = {
      ...approval!,
      approvalId: `${submitted.workflow_id}/tool/call-1/outcome`,
      kind: 'tool' as const,
      proposedAction: { tool: 'calculator', arguments: { expression: '1+1' }, outcome: 'unknown' },
      reason: 'calculator was interrupted after its request may have been sent: did it take effect?',
    };
    await insertPendingApproval(stack.pool, review);
    const refused = await grpcError(
      approveTask(stack.orchestrator, { approval_id: review.approvalId, approved: true, modified_action: '{"expression": "2+2"}' }),
    );
    expect([refused.code, refused.details]).toEqual([GrpcStatus.INVALID_ARGUMENT, 'modified_action: the only modified action here is {"run_again": true}']);
    expect(await approveTask(stack.orchestrator, { approval_id: review.approvalId, approved: true, modified_action: '{"run_again": true}' })).toMatchObject({
      success: true,
    });
    await approveTask(stack.orchestrator, { approval_id: pending.approval_id, approved: true });
    expect(await waitForFinish(stack.orchestrator, submitted.task_id)).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'reviewed' });
  });

  it('times out as TIMEOUT after the timeout given in the request, and refuses a late decision', async () => {
    const query = unique('nobody answers');
    const submitted = await submitTask(stack.orchestrator, {
      query,
      require_approval: true,
      context: { fields: { approval_timeout_seconds: { numberValue: 1 } } },
    });
    const pending = await pendingApprovalOf(stack.orchestrator, submitted.task_id);
    const status = await waitForFinish(stack.orchestrator, submitted.task_id);
    expect(status).toMatchObject({ status: 'TASK_STATUS_TIMEOUT', error_message: 'approval timed out' });
    expect(await findApproval(stack.pool, pending.approval_id)).toMatchObject({ status: 'expired' });
    const late = await grpcError(approveTask(stack.orchestrator, { approval_id: pending.approval_id, approved: true }));
    expect(late.code).toBe(GrpcStatus.FAILED_PRECONDITION);
  });

  it('the same decision works as a plain `temporal workflow signal`', async () => {
    const query = unique('signal from the cli');
    stack.model.on(query, { content: 'cli approved' });
    const submitted = await submitTask(stack.orchestrator, { query, require_approval: true });
    const pending = await pendingApprovalOf(stack.orchestrator, submitted.task_id);
    execFileSync(
      ensureTemporalCli(() => {}),
      [
        'workflow',
        'signal',
        '--address',
        process.env.TEMPORAL_ADDRESS!,
        '--workflow-id',
        submitted.workflow_id,
        '--name',
        'approvalDecision',
        '--input',
        JSON.stringify({ approvalId: pending.approval_id, approved: true, decidedBy: 'ops-cli' }),
      ],
    );
    expect(await waitForFinish(stack.orchestrator, submitted.task_id)).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'cli approved' });
    expect(await findApproval(stack.pool, pending.approval_id)).toMatchObject({ status: 'approved', decidedBy: 'ops-cli' });
  });

  it('an agent asks before a dangerous tool; approving with edited arguments runs the edited call', async () => {
    const query = unique('write the report file');
    stack.model.on(query, { toolCalls: [{ id: 'w1', name: 'file_write', arguments: '{"path":"report.txt","content":"draft"}' }] }, { content: 'file written' });
    const submitted = await submitTask(stack.orchestrator, { query, metadata: { session_id: `files-${Date.now()}` } });
    const pending = await pendingApprovalOf(stack.orchestrator, submitted.task_id);
    expect(JSON.parse(pending.proposed_action)).toEqual({ tool: 'file_write', arguments: { path: 'report.txt', content: 'draft' } });
    const badArgs = await grpcError(
      approveTask(stack.orchestrator, { approval_id: pending.approval_id, approved: true, modified_action: '{"path":"report.txt"}' }),
    );
    expect(badArgs.details).toMatch(/content/);
    await approveTask(stack.orchestrator, { approval_id: pending.approval_id, approved: true, modified_action: '{"path":"report.txt","content":"final"}' });
    expect(await waitForFinish(stack.orchestrator, submitted.task_id)).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'file written' });
    const toolMessage = (requestsMatching(query)[1]!.body as { messages: Array<{ role: string; content: string }> }).messages.at(-1)!;
    expect(JSON.parse(toolMessage.content)).toEqual({ path: 'report.txt', bytes: 5 });
    expect(await eventTypes(stack.pool, submitted.workflow_id)).toEqual([
      'WORKFLOW_STARTED',
      'AGENT_STARTED:main',
      'APPROVAL_REQUESTED:main',
      'APPROVAL_DECISION:main',
      'TOOL_INVOKED:main',
      'TOOL_OBSERVATION:main',
      'AGENT_COMPLETED:main',
      'WORKFLOW_COMPLETED',
    ]);
  });

  it("an admin's own task runs a dangerous tool without asking", async () => {
    const admin = await stack.clientFor({ tenantId: stack.principal.tenantId, userId: 'root', roles: ['admin'] });
    const query = unique('admin writes the file');
    stack.model.on(
      query,
      { toolCalls: [{ id: 'w1', name: 'file_write', arguments: '{"path":"admin.txt","content":"done"}' }] },
      { content: 'written by admin' },
    );
    const submitted = await submitTask(admin, { query, metadata: { session_id: `admin-files-${Date.now()}` } });
    expect(await waitForFinish(stack.orchestrator, submitted.task_id)).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'written by admin' });
    expect(await eventTypes(stack.pool, submitted.workflow_id)).toEqual([
      'WORKFLOW_STARTED',
      'AGENT_STARTED:main',
      'TOOL_INVOKED:main',
      'TOOL_OBSERVATION:main',
      'AGENT_COMPLETED:main',
      'WORKFLOW_COMPLETED',
    ]);
  });
});

itLeavesEveryTaskVerified(() => stack.everyTask());
