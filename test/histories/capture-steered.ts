// Records the golden history of a steered STANDARD task: paused while its first model step runs,
// sent a message, resumed; its second step carries the message:
// `npx tsx test/histories/capture-steered.ts`. It adds its file to the manifest.
import { launchTaskWorkflow } from '../../api/tasks/task-start';
import { taskWorkflowIdOf } from '../../core/tasks/run/task-ref';
import { pauseTaskUpdate, resumeTaskUpdate, sendMessageUpdate } from '../../workflows/messages';
import type { taskWorkflow } from '../../workflows/task-workflow';
import { testTaskInput } from '../support/stack';
import { captureGolden, until } from './capture-harness';
import { addToGoldenHistories } from './history-files';

captureGolden('golden-steered', async ({ model, temporal, taskQueue }) => {
  const calculate = { toolCalls: [{ id: 'g1', name: 'calculator', arguments: '{"expression":"6*7"}' }], delayMs: 1_000 };
  model.on((_last, body) => JSON.stringify(body.messages).includes('golden steered'), calculate, {
    content: 'It is 42.',
    usage: { prompt_tokens: 5, completion_tokens: 3 },
  });
  const input = testTaskInput({ taskId: 'golden-steered', query: 'golden steered' });
  await launchTaskWorkflow(temporal, taskQueue, input);
  const handle = temporal.workflow.getHandle<typeof taskWorkflow>(taskWorkflowIdOf(input.taskId));
  await until(() => model.requests.length > 0);
  await handle.executeUpdate(pauseTaskUpdate, { args: [{ reason: 'golden pause', requestedBy: 'golden' }] });
  await handle.executeUpdate(sendMessageUpdate, { args: [{ id: 'golden-message', text: 'answer in one sentence', from: 'golden' }] });
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  await handle.executeUpdate(resumeTaskUpdate, { args: [{ reason: 'golden resume', requestedBy: 'golden' }] });
  await handle.result();
  await addToGoldenHistories(temporal, handle.workflowId, 'steered');
});
