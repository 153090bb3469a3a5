import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { ephemeralListen, startApiServer, type ApiServer } from '../../api/server';
import type { TenantQuotas } from '../../api/tasks/tenant-admission';
import { loadConfig } from '../../core/config';
import { createWeftToolRegistry } from '../../core/tools';
import { createOrchestratorClient, unaryCall } from '../../protos/clients';
import { tenantIdKey } from '../../workflows/search-attributes';
import { grpcError } from '../support/grpc';
import { until } from '../support/orchestration';
import { startTestStack, type TestStack } from '../support/stack';

// One tenant flooding must not take the others' share: submissions per minute and running tasks
// are capped per tenant at the door (RESOURCE_EXHAUSTED for that tenant only), and Python programs
// per tenant on a worker.

let stack: TestStack;
const servers: ApiServer[] = [];
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  for (const server of servers) await server.shutdown();
  await stack.stop();
});

const run = Math.random().toString(36).slice(2, 8);

/** An API with these quotas, and a client of it for a fresh tenant. */
async function apiWith(quotas: TenantQuotas) {
  const api = await startApiServer({ ...stack.apiDeps, tenantQuotas: quotas }, ephemeralListen());
  servers.push(api);
  const tenant = async (name: string) => {
    const tenantId = `${name}-${run}-${servers.length}`;
    return {
      tenantId,
      client: createOrchestratorClient(`127.0.0.1:${api.port}`, { apiKey: await stack.newApiKey({ tenantId, userId: 'u', roles: ['approver'] }) }),
    };
  };
  return { a: await tenant('flooder'), b: await tenant('neighbour') };
}

it('caps task submissions per tenant per minute; another tenant is unaffected', async () => {
  const { a, b } = await apiWith({ submitsPerMinute: 3, maxRunningTasks: 0 });
  stack.model.on('quota question', { content: 'ok' });
  for (let i = 0; i < 3; i++) await unaryCall(a.client, 'SubmitTask', { query: 'quota question' });
  const refused = await grpcError(unaryCall(a.client, 'SubmitTask', { query: 'quota question' }));
  expect(refused.code).toBe(GrpcStatus.RESOURCE_EXHAUSTED);
  expect(refused.details).toMatch(/^your tenant has submitted 3 tasks this minute, its limit; retry in \d+ s$/);
  expect((await unaryCall(b.client, 'SubmitTask', { query: 'quota question' })).status).toBe('STATUS_CODE_OK');
});

it('caps running tasks per tenant; a finished task frees its place', async () => {
  const { a, b } = await apiWith({ submitsPerMinute: 0, maxRunningTasks: 2 });
  stack.model.on('waits for a person', { content: 'approved answer' });
  const waiting = [];
  for (let i = 0; i < 2; i++) waiting.push(await unaryCall(a.client, 'SubmitTask', { query: 'waits for a person', require_approval: true }));
  // Running tasks are counted by Temporal's visibility, which indexes a new workflow within moments.
  const running = `WorkflowType = "taskWorkflow" AND ExecutionStatus = "Running" AND ${tenantIdKey.name} = "${a.tenantId}"`;
  await until(async () => ((await stack.temporal.workflow.count(running)).count === 2 ? true : undefined));
  const refused = await grpcError(unaryCall(a.client, 'SubmitTask', { query: 'waits for a person' }));
  expect([refused.code, refused.details]).toEqual([
    GrpcStatus.RESOURCE_EXHAUSTED,
    'your tenant has 2 tasks running, its limit is 2; retry when some have finished',
  ]);
  expect((await unaryCall(b.client, 'SubmitTask', { query: 'waits for a person', require_approval: true })).status).toBe('STATUS_CODE_OK');

  await unaryCall(a.client, 'CancelTask', { task_id: waiting[0]!.task_id, reason: 'make room' });
  await until(async () => ((await stack.temporal.workflow.count(running)).count === 1 ? true : undefined));
  expect((await unaryCall(a.client, 'SubmitTask', { query: 'waits for a person' })).status).toBe('STATUS_CODE_OK');
});

it("caps one tenant's Python programs on a worker while another tenant's run", async () => {
  const config = loadConfig({});
  const tools = createWeftToolRegistry({
    ...config,
    workspaceDir: mkdtempSync(path.join(tmpdir(), 'weft-fairness-')),
    sandbox: { ...config.sandbox, poolSize: 0, programsPerTenant: 1 },
  });
  const context = (tenantId: string) => ({ tenantId, userId: 'u', roles: [], sessionId: '', taskId: `t-${tenantId}` });
  const slow = { code: 'import time\ntime.sleep(1.5)\nprint("done")' };
  const [first, second, neighbour] = await Promise.all([
    tools.execute('python_executor', slow, context('flooder')),
    // Started while the first is still running.
    new Promise((resolve) => setTimeout(resolve, 300)).then(() => tools.execute('python_executor', slow, context('flooder'))),
    tools.execute('python_executor', slow, context('neighbour')),
  ]);
  expect(first).toMatchObject({ ok: true });
  expect(neighbour).toMatchObject({ ok: true });
  expect(second).toEqual({
    ok: false,
    error: { category: 'execution', message: 'your tenant already runs 1 Python program(s) at once here, its limit; run this one after one finishes' },
  });
  // Once the first has finished, the tenant runs again.
  expect(await tools.execute('python_executor', { code: 'print(1)' }, context('flooder'))).toMatchObject({ ok: true });
}, 60_000);
