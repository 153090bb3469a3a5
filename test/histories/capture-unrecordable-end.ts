// Records the golden history of a task whose end could not be recorded (a conflicting turn already
// stored in its session), so it failed with that cause instead:
// `npx tsx test/histories/capture-unrecordable-end.ts`. It adds its file to the manifest.
import { createConversation } from '../../core/sessions/conversations';
import type { taskWorkflow } from '../../workflows/task-workflow';
import { testTaskInput } from '../support/stack';
import { captureGolden } from './capture-harness';
import { addToGoldenHistories } from './history-files';

captureGolden('golden-unrecordable-end', async ({ model, pool, temporal, taskQueue }) => {
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
});
