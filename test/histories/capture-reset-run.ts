// Records the golden histories of a finished task reset to before its second model step: the
// reset's run takes the task over in a new store run and runs that step fresh
// (`npx tsx test/histories/capture-reset-run.ts`). Run 1 is the original, run 2 the reset run.
import type { taskWorkflow } from '../../workflows/task-workflow';
import { beforeModelStep, resetWorkflowTo } from '../support/resets';
import { testTaskInput } from '../support/stack';
import { captureGolden } from './capture-harness';
import { addToGoldenHistories } from './history-files';

captureGolden('golden-reset-run', async ({ model, temporal, taskQueue }) => {
  model.on(
    'golden reset run',
    { toolCalls: [{ id: 'calc-1', name: 'calculator', arguments: '{"expression":"6*7"}' }] },
    { content: 'It is 42.' },
    { content: 'answered again' },
  );
  const input = testTaskInput({ taskId: 'golden-reset-run', query: 'golden reset run' });
  const handle = await temporal.workflow.start<typeof taskWorkflow>('taskWorkflow', { workflowId: input.taskId, taskQueue, args: [input] });
  await handle.result();
  const runId = await resetWorkflowTo(temporal, input.taskId, beforeModelStep(2));
  await temporal.workflow.getHandle(input.taskId, runId).result();
  await addToGoldenHistories(temporal, input.taskId, 'reset-run');
});
