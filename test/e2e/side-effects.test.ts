import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { createPool } from '../../core/db/database';
import { RecordType, createRuntimeStore } from '../../core/store';
import { findApproval } from '../../core/tasks/approvals';
import { decodeApprovalDecided, decodeApprovalRequested } from '../../core/tasks/run/run-records';
import { approvalDecisionSignal } from '../../workflows/messages';
import type { taskWorkflow } from '../../workflows/task-workflow';
import { ScriptedModelServer } from '../model-server/scripted-model-server';
import { startSideEffectPeer, toolsWithSideEffects, type SideEffectPeer } from '../support/side-effect-peer';
import { startTestWorker, testTaskInput } from '../support/stack';
import { itLeavesEveryTaskVerified } from '../support/verification';
import { startWorkerProcess } from '../support/worker-processes';

// Side effects exactly as declared, when the worker dies mid-call (SIGKILL): an at-most-once call
// is not sent again and its outcome is recorded as unknown, until a person says what to do with it;
// a keyed call is sent again with the same idempotency key, so the peer can tell it is the same call.

const pool = createPool(process.env.DATABASE_URL!);
// This file's tasks, for verifying them at its end.
const tenantId = `tenant-${randomUUID()}`;
const store = createRuntimeStore(pool);
const model = new ScriptedModelServer();
let peer: SideEffectPeer;
let connection: Connection;
let temporal: Client;

beforeAll(async () => {
  await model.start();
  peer = await startSideEffectPeer();
  connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  temporal = new Client({ connection });
});
afterAll(async () => {
  await connection.close();
  await peer.stop();
  await model.stop();
  await pool.end();
});

const until = async (condition: () => boolean | Promise<boolean>) => {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 50));
};

it('a worker killed during an at-most-once and a keyed call: the booking waits for a person, who has it run again; the payment is resent with its key', async () => {
  const taskQueue = `effects-${randomUUID()}`;
  const book = `book a table ${randomUUID()}`;
  const pay = `pay the bill ${randomUUID()}`;
  // The answers after each tool result first: the first matching rule answers.
  model.on((_text, body) => JSON.stringify(body.messages).includes('"tool_call_id":"book-1"'), { content: 'The table is booked.' });
  model.on((_text, body) => JSON.stringify(body.messages).includes('"tool_call_id":"pay-1"'), { content: 'Paid.' });
  model.on(book, { toolCalls: [{ id: 'book-1', name: 'effects_book', arguments: '{}' }] });
  model.on(pay, { toolCalls: [{ id: 'pay-1', name: 'effects_pay', arguments: '{}' }] });

  peer.holding = true;
  const worker = startWorkerProcess(taskQueue, model.baseURL, { SIDE_EFFECT_PEER: peer.base });
  const start = (query: string) => {
    const input = testTaskInput({ tenantId, taskId: `effects-${randomUUID()}`, query });
    return temporal.workflow.start<typeof taskWorkflow>('taskWorkflow', { workflowId: input.taskId, taskQueue, args: [input] });
  };
  const [booking, payment] = await Promise.all([start(book), start(pay)]);
  // Both requests are out and unanswered: the worker dies now.
  await until(() => peer.requests.length === 2);
  worker.child.kill('SIGKILL');
  expect(await worker.exited).toBe('SIGKILL');
  peer.holding = false;

  const replacement = await startTestWorker({ taskQueue, pool, store, modelBaseURL: model.baseURL, tools: await toolsWithSideEffects(peer.base) });
  try {
    expect(await payment.result()).toMatchObject({ status: 'COMPLETED', result: 'Paid.' });
    // The booking's retry did not send it again: its outcome is unknown, and a person is asked.
    const approvalId = `${booking.workflowId}/tool/book-1/outcome`;
    await until(async () => (await findApproval(pool, approvalId))?.status === 'pending');
    expect(peer.requests.filter((r) => r.path === '/api/bookings')).toHaveLength(1);
    expect(await findApproval(pool, approvalId)).toMatchObject({ kind: 'tool', reason: expect.stringContaining('effects_book was interrupted') });
    await booking.signal(approvalDecisionSignal, { approvalId, approved: true, modifiedAction: '{"run_again": true}', decidedBy: 'ops' });
    expect(await booking.result()).toMatchObject({ status: 'COMPLETED', result: 'The table is booked.' });
  } finally {
    await replacement.stop();
  }

  // Sent once by the dead worker, once more because a person asked; both outcomes are on record.
  expect(peer.requests.filter((r) => r.path === '/api/bookings')).toHaveLength(2);
  const records = (await store.listRunRecords(booking.workflowId, '', 100)).records.map(
    (r) => [r.type, JSON.parse(Buffer.from(r.payload).toString()) as Record<string, unknown>] as const,
  );
  expect(records.filter(([type]) => type === RecordType.ToolResult).map(([, payload]) => payload.outcome)).toEqual([
    { ok: false, error: { category: 'outcome_unknown', message: expect.any(String) } },
    { ok: true, content: { status: 200, body: { done: '/api/bookings' } } },
  ]);
  expect(records.find(([type]) => type === RecordType.ToolResultResolved)?.[1]).toMatchObject({
    tool_use_id: 'book-1',
    resolution: 'run_again',
    decided_by: 'ops',
    outcome: { ok: true },
  });
  // The audit: what was asked, and who decided what.
  const approval = (type: string) =>
    store.findRunRecord(booking.workflowId, `${booking.workflowId}/approval/${booking.workflowId}/tool/book-1/outcome/${type}`);
  expect(decodeApprovalRequested((await approval('requested'))!)).toMatchObject({
    kind: 'tool',
    proposed_action: { tool: 'effects_book', outcome: 'unknown' },
  });
  expect(decodeApprovalDecided((await approval('decided'))!)).toMatchObject({ status: 'approved', decided_by: 'ops', modified_action: '{"run_again": true}' });
  // The model got the second attempt's result in place of the unknown outcome.
  const told = model.requests.find((r) => JSON.stringify(r.body.messages).includes('"tool_call_id":"book-1"'))!;
  expect(JSON.stringify(told.body.messages)).toContain('/api/bookings');
  expect(JSON.stringify(told.body.messages)).not.toContain('outcome_unknown');

  // The payment went out twice, with one key.
  const payments = peer.requests.filter((r) => r.path === '/api/payments');
  expect(payments).toHaveLength(2);
  expect(payments[0]!.idempotencyKey).toMatch(/^weft-[0-9a-f]{40}$/);
  expect(payments[1]!.idempotencyKey).toBe(payments[0]!.idempotencyKey);
});

itLeavesEveryTaskVerified(async () => {
  const { rows } = await pool.query<{ task_id: string }>('SELECT task_id FROM tasks WHERE tenant_id = $1', [tenantId]);
  return { deps: { pool, store, temporal }, taskIds: rows.map((row) => row.task_id) };
});
