// Records the golden histories of a COMPLEX task reset to before its agent `gamma` while that agent
// still runs: the reset's run waits for the earlier run's gamma to finish before it starts its own
// under the same workflow id (`npx tsx test/histories/capture-reset-agent-wait.ts`). Run 1 is the
// original, run 2 the reset run.
import type { taskWorkflow } from '../../workflows/task-workflow';
import { resetWorkflowTo } from '../support/resets';
import { testTaskInput } from '../support/stack';
import { captureGolden, until } from './capture-harness';
import { addToGoldenHistories } from './history-files';

captureGolden('golden-reset-agent-wait', async ({ model, temporal, taskQueue }) => {
  model.on('golden wait alpha', { content: 'alpha result' });
  model.on('golden wait gamma', { content: 'gamma too slow', delayMs: 3_000 }, { content: 'gamma again' });
  model.on((text) => text.includes('Combine these results'), { content: 'combined' });
  const manualPlan = {
    agents: [
      { id: 'alpha', description: 'golden wait alpha', dependencies: [], tools: [], tier: 'MEDIUM' as const },
      { id: 'gamma', description: 'golden wait gamma', dependencies: ['alpha'], tools: [], tier: 'MEDIUM' as const },
    ],
  };
  const input = testTaskInput({ taskId: 'golden-reset-agent-wait', query: 'golden reset agent wait', manualPlan });
  const handle = await temporal.workflow.start<typeof taskWorkflow>('taskWorkflow', { workflowId: input.taskId, taskQueue, args: [input] });
  const gamma = `${input.taskId}/agent/gamma`;
  await until(() => model.requests.some((r) => JSON.stringify(r.body).includes('golden wait gamma')));
  const runId = await resetWorkflowTo(
    temporal,
    handle.workflowId,
    (events) =>
      events.find((e) => e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId === gamma)!.startChildWorkflowExecutionInitiatedEventAttributes!
        .workflowTaskCompletedEventId!,
  );
  await temporal.workflow.getHandle(input.taskId, runId).result();
  await addToGoldenHistories(temporal, input.taskId, 'reset-agent-wait');
});
