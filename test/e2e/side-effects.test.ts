import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { createPool } from '../../core/db/database';
import { RecordType, createRuntimeStore } from '../../core/store';
import type { taskWorkflow } from '../../workflows/task-workflow';
import { ScriptedModelServer } from '../model-server/scripted-model-server';
import { startSideEffectPeer, toolsWithSideEffects, type SideEffectPeer } from '../support/side-effect-peer';
import { startTestWorker, testTaskInput } from '../support/stack';
import { startWorkerProcess } from '../support/worker-processes';

// Side effects exactly as declared, when the worker dies mid-call (SIGKILL): an at-most-once call
// is not sent again and its outcome is recorded as unknown; a keyed call is sent again with the
// same idempotency key, so the peer can tell it is the same call.

const pool = createPool(process.env.DATABASE_URL!);
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

const until = async (condition: () => boolean) => {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 50));
};

it('a worker killed during an at-most-once and a keyed call: one booking with its outcome unknown, one payment key sent twice', async () => {
  const taskQueue = `effects-${randomUUID()}`;
  const book = `book a table ${randomUUID()}`;
  const pay = `pay the bill ${randomUUID()}`;
  // The answers after each tool result first: the first matching rule answers.
  model.on((_text, body) => JSON.stringify(body.messages).includes('"tool_call_id":"book-1"'), { content: 'I could not confirm the booking.' });
  model.on((_text, body) => JSON.stringify(body.messages).includes('"tool_call_id":"pay-1"'), { content: 'Paid.' });
  model.on(book, { toolCalls: [{ id: 'book-1', name: 'effects_book', arguments: '{}' }] });
  model.on(pay, { toolCalls: [{ id: 'pay-1', name: 'effects_pay', arguments: '{}' }] });

  peer.holding = true;
  const worker = startWorkerProcess(taskQueue, model.baseURL, { SIDE_EFFECT_PEER: peer.base });
  const start = (query: string) => {
    const input = testTaskInput({ taskId: `effects-${randomUUID()}`, query });
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
    expect(await booking.result()).toMatchObject({ status: 'COMPLETED', result: 'I could not confirm the booking.' });
    expect(await payment.result()).toMatchObject({ status: 'COMPLETED', result: 'Paid.' });
  } finally {
    await replacement.stop();
  }

  // The booking went out once; the task records that its outcome is unknown, and the model was told so.
  expect(peer.requests.filter((r) => r.path === '/api/bookings')).toHaveLength(1);
  const records = (await store.listRunRecords(booking.workflowId, '', 100)).records;
  expect(records.map((r) => r.type)).toEqual(expect.arrayContaining([RecordType.ToolCallStarted, RecordType.ToolResult]));
  const result = records.find((r) => r.type === RecordType.ToolResult)!;
  expect(JSON.parse(Buffer.from(result.payload).toString())).toMatchObject({ outcome: { ok: false, error: { category: 'outcome_unknown' } } });
  const told = model.requests.find((r) => JSON.stringify(r.body.messages).includes('"tool_call_id":"book-1"'))!;
  expect(JSON.stringify(told.body.messages)).toContain('outcome_unknown');

  // The payment went out twice, with one key.
  const payments = peer.requests.filter((r) => r.path === '/api/payments');
  expect(payments).toHaveLength(2);
  expect(payments[0]!.idempotencyKey).toMatch(/^weft-[0-9a-f]{40}$/);
  expect(payments[1]!.idempotencyKey).toBe(payments[0]!.idempotencyKey);
});
