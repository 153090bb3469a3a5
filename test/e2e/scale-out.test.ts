import { randomUUID } from 'node:crypto';
import type { ServiceError } from '@grpc/grpc-js';
import { Client, Connection } from '@temporalio/client';
import { createApiKey } from '../../core/auth/api-keys';
import { createRuntimeStore } from '../../core/store';
import { createPool } from '../../core/db/database';
import { listTaskEvents } from '../../core/events/event-log';
import { createOrchestratorClient, createStreamingClient, unaryCall } from '../../protos/clients';
import type { TaskUpdate__Output } from '../../protos/generated/shannon/orchestrator/TaskUpdate';
import { ScriptedModelServer } from '../model-server/scripted-model-server';
import { waitForFinish } from '../support/grpc';
import { approveTask, pendingApprovalOf, until } from '../support/orchestration';
import { startApiProcess } from '../support/api-process';
import { startReadyProcess, stop } from '../support/processes';
import { itLeavesEveryTaskVerified } from '../support/verification';

// Two APIs and two workers as separate processes on one database and one task queue, as a
// deployment scales out: a stream on one API sees a task submitted through the other, a worker
// killed mid-task leaves its work to the other, and an API stopped under open streams hands them
// to the other API without a gap.

type Proc = Awaited<ReturnType<typeof startReadyProcess>>;
const pool = createPool(process.env.DATABASE_URL!);
const model = new ScriptedModelServer();
const taskQueue = `scale-out-${randomUUID()}`;
const workers: Proc[] = [];
const apis: Array<{ proc: Proc; address: string }> = [];
let apiKey: string;
let tenantId: string;
let temporalConnection: Connection | undefined;

const env = () => ({
  WEFT_TASK_QUEUE: taskQueue,
  WEFT_LLM_BASE_URL: model.baseURL,
  WEFT_LLM_MODEL: 'scale-model',
  WEFT_WORKFLOW_BUNDLE: process.env.WEFT_TEST_WORKFLOW_BUNDLE!,
  WEFT_METRICS_PORT: '0',
  WEFT_SANDBOX_POOL_SIZE: '0',
});

beforeAll(async () => {
  await model.start();
  tenantId = `tenant-${randomUUID()}`;
  apiKey = await createApiKey(pool, { tenantId, userId: 'sam', roles: ['approver'] });
  for (let i = 0; i < 2; i++) workers.push(await startReadyProcess('workers/main.ts', env(), 'worker polling task queue'));
  for (let i = 0; i < 2; i++) apis.push(await startApiProcess(env()));
}, 120_000);

afterAll(async () => {
  for (const proc of [...apis.map((api) => api.proc), ...workers]) await stop(proc);
  await model.stop();
  await temporalConnection?.close();
  await pool.end();
});

const orchestrator = (address: string) => createOrchestratorClient(address, { apiKey });

/** Reads a task's stream from `addresses` in turn: when one API ends the stream or goes away, the next continues after the last event seen. */
async function followAcross(
  addresses: string[],
  workflowId: string,
  onUpdate: (update: TaskUpdate__Output) => void = () => undefined,
): Promise<TaskUpdate__Output[]> {
  const seen: TaskUpdate__Output[] = [];
  for (const address of addresses) {
    const client = createStreamingClient(address, { apiKey });
    const last = seen.at(-1)?.stream_id ?? '';
    await new Promise<void>((resolve) => {
      const call = client.StreamTaskExecution({ workflow_id: workflowId, types: [], last_event_id: '0', last_stream_id: last });
      call.on('data', (update: TaskUpdate__Output) => {
        if (update.stream_id === '') return; // live-only partial text
        seen.push(update);
        onUpdate(update);
      });
      call.on('end', () => resolve());
      call.on('error', (_err: ServiceError) => resolve());
    });
    client.close();
    if (seen.at(-1)?.type.startsWith('WORKFLOW_') && seen.at(-1)?.type !== 'WORKFLOW_STARTED') break;
  }
  return seen;
}

it('shows on a stream of API 1 the events of a task submitted through API 2', async () => {
  model.on('across the APIs', { content: 'seen everywhere', delayMs: 300 });
  const client = orchestrator(apis[1]!.address);
  const submitted = await unaryCall(client, 'SubmitTask', { query: 'across the APIs' });
  const updates = await followAcross([apis[0]!.address], submitted.workflow_id);
  expect(updates.map((u) => u.type)).toEqual(['WORKFLOW_STARTED', 'AGENT_STARTED', 'AGENT_COMPLETED', 'WORKFLOW_COMPLETED']);
  expect(await waitForFinish(client, submitted.task_id)).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'seen everywhere' });
  client.close();
});

it('finishes every task on the other worker when one is killed mid-task', async () => {
  const client = orchestrator(apis[0]!.address);
  const tasks = [];
  for (let i = 0; i < 6; i++) {
    const query = `survive the kill ${i} ${randomUUID()}`;
    model.on(query, { content: `survived ${i}`, delayMs: 2_000 });
    tasks.push(await unaryCall(client, 'SubmitTask', { query }));
  }
  // Once model calls are in flight, one worker dies without a chance to clean up.
  await until(() => model.requests.filter((r) => JSON.stringify(r.body).includes('survive the kill')).length >= 2 || undefined);
  await stop(workers[0]!, 'SIGKILL');
  for (const [i, task] of tasks.entries()) {
    expect(await waitForFinish(client, task.task_id, 90_000)).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: `survived ${i}` });
  }
  client.close();
}, 120_000);

it('hands the streams of an API stopped with SIGTERM to the other API, without a gap or a duplicate', async () => {
  const client = orchestrator(apis[1]!.address);
  const waiting = [];
  for (let i = 0; i < 4; i++) {
    const query = `hand over ${i} ${randomUUID()}`;
    model.on(query, { content: `handed over ${i}` });
    waiting.push(await unaryCall(client, 'SubmitTask', { query, require_approval: true }));
  }
  const approvals = await Promise.all(waiting.map((task) => pendingApprovalOf(client, task.task_id)));
  const onFirst = new Set<string>();
  const streams = waiting.map((task) => followAcross([apis[0]!.address, apis[1]!.address], task.workflow_id, () => onFirst.add(task.workflow_id)));
  await until(() => onFirst.size === waiting.length || undefined);
  await stop(apis[0]!.proc, 'SIGTERM');
  for (const approval of approvals) await approveTask(client, { approval_id: approval.approval_id, approved: true });

  for (const [i, updates] of (await Promise.all(streams)).entries()) {
    const logged = await listTaskEvents(pool, waiting[i]!.workflow_id);
    expect(updates.map((u) => Number(u.seq))).toEqual(logged.map((e) => e.seq));
    expect(updates.at(-1)?.type).toBe('WORKFLOW_COMPLETED');
  }
  client.close();
}, 120_000);

itLeavesEveryTaskVerified(async () => {
  temporalConnection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const { rows } = await pool.query<{ task_id: string }>('SELECT task_id FROM tasks WHERE tenant_id = $1', [tenantId]);
  return { deps: { pool, store: createRuntimeStore(pool), temporal: new Client({ connection: temporalConnection }) }, taskIds: rows.map((row) => row.task_id) };
});
