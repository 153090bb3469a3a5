// Records the golden history of a STANDARD task whose first model step records its start (the
// first-model-step-starts-the-task patch): no local activity before that step, and the tools the
// start offers learned from it, used by the second step: `npx tsx test/histories/capture-first-step-start.ts`.
// It adds its file to the manifest.
import { launchTaskWorkflow } from '../../api/tasks/task-start';
import { taskWorkflowIdOf } from '../../core/tasks/run/task-ref';
import type { taskWorkflow } from '../../workflows/task-workflow';
import { testTaskInput } from '../support/stack';
import { captureGolden } from './capture-harness';
import { addToGoldenHistories } from './history-files';

captureGolden('golden-first-step-start', async ({ model, temporal, taskQueue }) => {
  const calculate = { toolCalls: [{ id: 'g1', name: 'calculator', arguments: '{"expression":"2+2"}' }] };
  model.on('golden first step start', calculate, { content: 'It is 4.', usage: { prompt_tokens: 5, completion_tokens: 3 } });
  const input = testTaskInput({ taskId: 'golden-first-step-start', query: 'golden first step start', sessionId: 'golden-first-step-session' });
  await launchTaskWorkflow(temporal, taskQueue, input);
  const handle = temporal.workflow.getHandle<typeof taskWorkflow>(taskWorkflowIdOf(input.taskId));
  await handle.result();
  await addToGoldenHistories(temporal, handle.workflowId, 'first-step-start');
});
