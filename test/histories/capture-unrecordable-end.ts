// Records the golden history of a task whose end could not be recorded (a conflicting turn already
// stored in its session), so it failed with that cause instead:
// `npx tsx test/histories/capture-unrecordable-end.ts`. It adds its file to the manifest.
import { Client, Connection } from '@temporalio/client';
import { createPool } from '../../core/db/database';
import { createConversation } from '../../core/sessions/conversations';
import { createRuntimeStore } from '../../core/store';
import type { taskWorkflow } from '../../workflows/task-workflow';
import { ScriptedModelServer } from '../model-server/scripted-model-server';
import '../setup/quiet-sdk-logs';
import { startTestServices } from '../setup/test-services';
import { startTestWorker, testTaskInput } from '../support/stack';
import { addToGoldenHistories } from './history-files';

async function main(): Promise<void> {
  const services = await startTestServices();
  const model = new ScriptedModelServer();
  await model.start();
  const pool = createPool(process.env.DATABASE_URL!);
  const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const temporal = new Client({ connection });
  const taskQueue = 'golden-unrecordable-end';
  const worker = await startTestWorker({ taskQueue, pool, store: createRuntimeStore(pool), modelBaseURL: model.baseURL });
  try {
    model.on('golden unrecordable end', { content: 'an answer that cannot be kept' });
    const sessionId = 'golden-unrecordable-end-session';
    await createConversation(pool, { sessionId, tenantId: 't', userId: 'u', context: {}, maxHistory: 10, ttlSeconds: 3600 }, new Date());
    const input = testTaskInput({ taskId: 'golden-unrecordable-end', query: 'golden unrecordable end', sessionId });
    await pool.query(`INSERT INTO conversation_messages (session_id, message_id, role, content, created_at) VALUES ($1, $2, 'assistant', 'planted', now())`, [
      sessionId,
      `${input.taskId}/answer`,
    ]);
    const handle = await temporal.workflow.start<typeof taskWorkflow>('taskWorkflow', { workflowId: input.taskId, taskQueue, args: [input] });
    await handle.result().then(
      () => Promise.reject(new Error('the task was expected to fail')),
      () => undefined,
    );
    await addToGoldenHistories(temporal, input.taskId, 'unrecordable-end');
  } finally {
    await worker.stop();
    await connection.close();
    await pool.end();
    await model.stop();
    await services.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
