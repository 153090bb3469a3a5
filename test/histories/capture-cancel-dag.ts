// Records the golden history of a COMPLEX task cancelled while two agents run: the task ends once
// both agents have ended their own cancellation (the cancelled-task-waits-for-every-agent patch):
// `npx tsx test/histories/capture-cancel-dag.ts`. It adds its file to the manifest.
import { launchTaskWorkflow } from '../../api/tasks/task-start';
import { taskWorkflowIdOf } from '../../core/tasks/run/task-ref';
import { cancelTaskSignal } from '../../workflows/messages';
import type { taskWorkflow } from '../../workflows/task-workflow';
import { testTaskInput } from '../support/stack';
import { captureGolden, until } from './capture-harness';
import { addToGoldenHistories } from './history-files';

captureGolden('golden-cancel-dag', async ({ model, temporal, taskQueue }) => {
  for (const agent of ['one', 'two']) model.on(`golden cancel dag ${agent}`, { content: 'never', delayMs: 20_000 });
  const agents = ['one', 'two'].map((id) => ({ id, description: `golden cancel dag ${id}`, dependencies: [], tools: [], tier: 'MEDIUM' as const }));
  const input = testTaskInput({ taskId: 'golden-cancel-dag', query: 'golden cancel dag', manualPlan: { agents } });
  await launchTaskWorkflow(temporal, taskQueue, input);
  const handle = temporal.workflow.getHandle<typeof taskWorkflow>(taskWorkflowIdOf(input.taskId));
  await until(() => agents.every((agent) => model.requests.some((r) => JSON.stringify(r.body).includes(agent.description))));
  await handle.signal(cancelTaskSignal, { reason: 'golden cancel dag' });
  await handle.result();
  await addToGoldenHistories(temporal, handle.workflowId, 'cancel-dag');
});
