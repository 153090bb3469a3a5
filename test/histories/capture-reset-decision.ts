// Records the golden histories of an approved task reset to before its approval request, without
// its signals (`npx tsx test/histories/capture-reset-decision.ts`). Run 1 is the original, run 2 the
// reset run. The recorded files come from the code before `reset-starts-a-new-store-run`, whose reset
// run applied the decision the store held instead of waiting for one; run today, the reset run asks
// again in a new store run, as capture-reset-run.ts records.
import { findApproval } from '../../core/tasks/approvals';
import { approvalDecisionSignal } from '../../workflows/messages';
import type { taskWorkflow } from '../../workflows/task-workflow';
import { resetWorkflowTo, scheduledOf } from '../support/resets';
import { testTaskInput } from '../support/stack';
import { captureGolden, until } from './capture-harness';
import { addToGoldenHistories } from './history-files';

captureGolden('golden-reset-decision', async ({ model, pool, temporal, taskQueue }) => {
  model.on('golden reset decision', { content: 'approved once' });
  const input = testTaskInput({ taskId: 'golden-reset-decision', query: 'golden reset decision', requireApproval: true });
  const handle = await temporal.workflow.start<typeof taskWorkflow>('taskWorkflow', { workflowId: input.taskId, taskQueue, args: [input] });
  const approvalId = `${input.taskId}/plan`;
  await until(async () => (await findApproval(pool, approvalId))?.status === 'pending');
  await handle.signal(approvalDecisionSignal, { approvalId, approved: true, decidedBy: 'golden' });
  await handle.result();
  const runId = await resetWorkflowTo(
    temporal,
    input.taskId,
    (events) => scheduledOf(events, 'requestApproval')[0]!.activityTaskScheduledEventAttributes!.workflowTaskCompletedEventId!,
    false,
  );
  await temporal.workflow.getHandle(input.taskId, runId).result();
  await addToGoldenHistories(temporal, input.taskId, 'reset-decision');
});
