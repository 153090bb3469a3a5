// Records the golden history of a schedule's run: a task workflow started by a Temporal Schedule,
// whose input leaves the task id to the run's workflow id (`npx tsx test/histories/capture-scheduled.ts`).
import type { taskWorkflow } from '../../workflows/task-workflow';
import { testTaskInput } from '../support/stack';
import { captureGolden, until } from './capture-harness';
import { addToGoldenHistories } from './history-files';

captureGolden('golden-scheduled', async ({ model, temporal, taskQueue }) => {
  model.on('golden scheduled run', { content: 'The scheduled answer.', usage: { prompt_tokens: 4, completion_tokens: 3 } });
  const input = testTaskInput({ taskId: '', query: 'golden scheduled run' });
  const schedule = await temporal.schedule.create({
    scheduleId: 'golden-scheduled',
    spec: { cronExpressions: ['0 9 * * *'] },
    action: { type: 'startWorkflow', workflowType: 'taskWorkflow', workflowId: 'golden-scheduled', taskQueue, args: [input] },
    state: { paused: true },
  });
  await schedule.trigger();
  let workflowId = '';
  await until(async () => {
    workflowId = (await schedule.describe()).info.recentActions[0]?.action.workflow.workflowId ?? '';
    return workflowId !== '';
  });
  await temporal.workflow.getHandle<typeof taskWorkflow>(workflowId).result();
  await schedule.delete();
  await addToGoldenHistories(temporal, workflowId, 'scheduled');
});
