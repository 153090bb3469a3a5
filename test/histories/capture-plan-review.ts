// Records the golden history of a plan reviewed in two rounds of feedback, then approved and run
// (`npx tsx test/histories/capture-plan-review.ts`).
import { planReviewQuery, reviewPlanUpdate } from '../../workflows/messages';
import type { taskWorkflow } from '../../workflows/task-workflow';
import { testTaskInput } from '../support/stack';
import { captureGolden, until } from './capture-harness';
import { addToGoldenHistories } from './history-files';

const planOf = (...ids: string[]) =>
  JSON.stringify({ agents: ids.map((id) => ({ id, description: `golden review ${id}`, dependencies: [], tools: [], tier: 'SMALL' })) });

captureGolden('golden-plan-review', async ({ model, temporal, taskQueue }) => {
  model.on((text) => text.includes('Split the task below') && text.includes('golden plan review'), { content: planOf('draft') });
  model.on('Feedback: add a checker', { content: planOf('draft', 'checker') });
  model.on('Feedback: only the checker', { content: planOf('checker') });
  model.on('golden review checker', { content: 'checked' });
  const input = testTaskInput({ taskId: 'golden-plan-review', query: 'golden plan review', reviewPlan: true });
  const handle = await temporal.workflow.start<typeof taskWorkflow>('taskWorkflow', { workflowId: input.taskId, taskQueue, args: [input] });
  await until(() =>
    handle.query(planReviewQuery).then(
      () => true,
      () => false,
    ),
  );
  await handle.executeUpdate(reviewPlanUpdate, { args: [{ action: 'feedback', message: 'add a checker', by: 'golden' }] });
  await handle.executeUpdate(reviewPlanUpdate, { args: [{ action: 'feedback', message: 'only the checker', by: 'golden', version: 2 }] });
  await handle.executeUpdate(reviewPlanUpdate, { args: [{ action: 'approve', by: 'golden', version: 3 }] });
  await handle.result();
  await addToGoldenHistories(temporal, input.taskId, 'plan-review');
});
