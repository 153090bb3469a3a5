import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { createPool } from '../../core/db/database';
import { RecordType, createRuntimeStore } from '../../core/store';
import { assistantText, buildMessagesFromRunLog, userText } from '../../core/transcript';
import type { taskWorkflow } from '../../workflows/task-workflow';
import { ScriptedModelServer } from '../model-server/scripted-model-server';
import { startTestWorker, testTaskInput } from '../support/stack';

const repoRoot = path.resolve(__dirname, '../..');
const pool = createPool(process.env.DATABASE_URL!);
const store = createRuntimeStore(pool);
const model = new ScriptedModelServer();
let connection: Connection;
let temporal: Client;

beforeAll(async () => {
  await model.start();
  connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  temporal = new Client({ connection });
});
afterAll(async () => {
  await connection.close();
  await model.stop();
  await pool.end();
});

it('a worker killed right after a store write committed: the task completes with no duplicate and no missing record', async () => {
  const taskQueue = `crash-${randomUUID()}`;
  const query = `crash-test question ${randomUUID()}`;
  model.on(query, { content: 'The answer survived the crash.', usage: { prompt_tokens: 9, completion_tokens: 5 } });

  // node --import tsx, not the tsx wrapper: the SIGKILL must hit the process we watch.
  const crashing = spawn(process.execPath, ['--import', 'tsx', 'test/support/crashing-worker.ts'], {
    cwd: repoRoot,
    env: { ...process.env, WEFT_TASK_QUEUE: taskQueue, WEFT_LLM_BASE_URL: model.baseURL, CRASH_AFTER_RECORD_TYPE: RecordType.TranscriptAppended },
    stdio: 'inherit',
  });
  const died = new Promise<NodeJS.Signals | null>((resolve) => crashing.once('exit', (_code, signal) => resolve(signal)));

  const input = testTaskInput({ taskId: `crash-${randomUUID()}`, sessionId: `sess-${randomUUID()}`, query });
  const handle = await temporal.workflow.start<typeof taskWorkflow>('taskWorkflow', { workflowId: input.taskId, taskQueue, args: [input] });

  expect(await died).toBe('SIGKILL');
  // The reply is committed, but the activity never reported it: the workflow is still running.
  expect(await store.findRunRecord(input.taskId, `${input.taskId}/step-0/reply`)).toBeDefined();
  expect((await handle.describe()).status.name).toBe('RUNNING');

  const replacement = await startTestWorker({ taskQueue, pool, store, modelBaseURL: model.baseURL });
  try {
    const result = await handle.result();
    expect(result).toMatchObject({ status: 'COMPLETED', result: 'The answer survived the crash.' });
  } finally {
    await replacement.stop();
  }

  // The retried step found its stored reply instead of asking the model again.
  expect(model.requests.filter((r) => JSON.stringify(r.body).includes(query))).toHaveLength(1);
  const records = (await store.listRunRecords(input.taskId, '', 100)).records;
  expect(records.map((r) => r.type)).toEqual([
    RecordType.RunStarted,
    RecordType.TranscriptSeeded,
    RecordType.TranscriptAppended,
    RecordType.RunCompleted,
  ]);
  expect(await buildMessagesFromRunLog(store, input.taskId)).toEqual([userText(query), assistantText('The answer survived the crash.')]);
  const task = await pool.query('SELECT status, total_tokens FROM tasks WHERE task_id = $1', [input.taskId]);
  expect(task.rows).toEqual([{ status: 'COMPLETED', total_tokens: 14 }]);
});
