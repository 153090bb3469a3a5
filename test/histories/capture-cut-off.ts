// Records the golden history of a STANDARD task whose answer the token limit cut off once: its next
// step goes on with it (`npx tsx test/histories/capture-cut-off.ts`).
import type { taskWorkflow } from '../../workflows/task-workflow';
import { testTaskInput } from '../support/stack';
import { captureGolden } from './capture-harness';
import { addToGoldenHistories } from './history-files';

captureGolden('golden-cut-off', async ({ model, temporal, taskQueue }) => {
  model.on(
    (_last, body) => JSON.stringify(body.messages).includes('golden cut off'),
    { content: 'The first half, ', finishReason: 'length' },
    { content: 'and the rest.' },
  );
  const input = testTaskInput({ taskId: 'golden-cut-off', query: 'golden cut off' });
  await temporal.workflow.execute<typeof taskWorkflow>('taskWorkflow', { workflowId: input.taskId, taskQueue, args: [input] });
  await addToGoldenHistories(temporal, input.taskId, 'cut-off');
});
