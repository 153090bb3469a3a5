import { status as GrpcStatus } from '@grpc/grpc-js';
import { startAuthenticator } from '../../api/tasks/auth';
import { ephemeralListen, startApiServer } from '../../api/server';
import { createOrchestratorClient } from '../../protos/clients';
import { getTaskStatus, grpcError, submitTask, waitForFinish } from '../support/grpc';
import { approveTask, cancelTask, pendingApprovalOf, pendingApprovals } from '../support/orchestration';
import { startTestStack, type TestStack } from '../support/stack';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());

const unique = (label: string) => `${label} ${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;

describe('authentication', () => {
  it('refuses a call without credentials, or with a bad key, as UNAUTHENTICATED', async () => {
    const anonymous = createOrchestratorClient(`127.0.0.1:${stack.api.port}`);
    const missing = await grpcError(submitTask(anonymous, { query: 'hello' }));
    expect(missing.code).toBe(GrpcStatus.UNAUTHENTICATED);
    expect(missing.details).toBe('missing credentials: send "authorization: Bearer <api key>"');
    const forged = createOrchestratorClient(`127.0.0.1:${stack.api.port}`, { apiKey: `weft_abcdefabcdef_${'x'.repeat(43)}` });
    expect((await grpcError(getTaskStatus(forged, 'any'))).code).toBe(GrpcStatus.UNAUTHENTICATED);
    anonymous.close();
    forged.close();
  });
});

describe('rate limits', () => {
  it('answers RESOURCE_EXHAUSTED once a key has used its calls for the minute', async () => {
    const auth = await startAuthenticator({ pool: stack.pool, databaseUrl: process.env.DATABASE_URL!, enabled: true, perMinute: 2 });
    const limited = await startApiServer({ ...stack.apiDeps, auth }, ephemeralListen());
    const client = createOrchestratorClient(`127.0.0.1:${limited.port}`, { apiKey: stack.apiKey });
    for (let call = 0; call < 2; call++) expect((await grpcError(getTaskStatus(client, 'nope'))).code).toBe(GrpcStatus.NOT_FOUND);
    const exhausted = await grpcError(getTaskStatus(client, 'nope'));
    expect(exhausted.code).toBe(GrpcStatus.RESOURCE_EXHAUSTED);
    expect(exhausted.details).toMatch(/^rate limit of 2 calls a minute reached; retry in \d+ s$/);
    client.close();
    await limited.shutdown();
    await auth.close();
  });
});

describe("Shannon's rate-limit headers", () => {
  it('tells a REST caller its limit, what is left and when it resets, and when to retry once it is used up', async () => {
    const auth = await startAuthenticator({ pool: stack.pool, databaseUrl: process.env.DATABASE_URL!, enabled: true, perMinute: 3 });
    const limited = await startApiServer({ ...stack.apiDeps, auth }, ephemeralListen());
    try {
      const get = () => fetch(`http://127.0.0.1:${limited.httpPort}/api/v1/tasks?limit=1`, { headers: { 'x-api-key': stack.apiKey } });
      const first = await get();
      expect([first.status, first.headers.get('x-ratelimit-limit'), first.headers.get('x-ratelimit-remaining')]).toEqual([200, '3', '2']);
      expect(Number(first.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0);
      await get();
      await get();
      const refused = await get();
      expect([refused.status, refused.headers.get('x-ratelimit-remaining')]).toEqual([429, '0']);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    } finally {
      await limited.shutdown();
      await auth.close();
    }
  });
});

describe('tenancy', () => {
  it('refuses every id of another tenant and lists none of its data', async () => {
    const query = unique('tenant A secret');
    stack.model.on(query, { content: 'A only' });
    const mine = await submitTask(stack.orchestrator, { query, require_approval: true });
    const approval = await pendingApprovalOf(stack.orchestrator, mine.task_id);

    const other = await stack.clientFor({ tenantId: 'tenant-b', userId: 'mallory', roles: ['approver'] });
    expect((await grpcError(getTaskStatus(other, mine.task_id))).code).toBe(GrpcStatus.NOT_FOUND);
    expect((await grpcError(cancelTask(other, mine.task_id, 'x'))).code).toBe(GrpcStatus.NOT_FOUND);
    expect((await grpcError(approveTask(other, { approval_id: approval.approval_id, approved: true }))).code).toBe(GrpcStatus.NOT_FOUND);
    expect((await pendingApprovals(other)).approvals.map((a) => a.approval_id)).not.toContain(approval.approval_id);
    // Task ids are per tenant: naming another tenant's task id starts a task of one's own, and reveals nothing.
    stack.model.on('mine now', { content: 'b only' });
    const reuse = await submitTask(other, { query: 'mine now', metadata: { task_id: mine.task_id } });
    expect(reuse.task_id).not.toBe(mine.task_id);
    const claim = await grpcError(submitTask(other, { query: 'q', metadata: { tenant_id: stack.principal.tenantId } }));
    expect(claim.code).toBe(GrpcStatus.PERMISSION_DENIED);

    // Deciding needs the approver role, in the task's own tenant too.
    const viewer = await stack.clientFor({ ...stack.principal, userId: 'viewer', roles: [] });
    const denied = await grpcError(approveTask(viewer, { approval_id: approval.approval_id, approved: true }));
    expect(denied.code).toBe(GrpcStatus.PERMISSION_DENIED);
    expect(denied.details).toBe('deciding an approval needs the approver role');

    await approveTask(stack.orchestrator, { approval_id: approval.approval_id, approved: true });
    expect((await waitForFinish(stack.orchestrator, mine.task_id)).result).toBe('A only');
  });
});
