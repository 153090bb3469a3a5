// Records the golden history of an approval decision the workflow could not apply (a signal
// without an approval id, shown on the task's stream), followed by a valid decision:
// `npx tsx test/histories/capture-ignored-decision.ts`. It adds its file to the manifest.
import { findApproval } from '../../core/tasks/approvals';
import { approvalDecisionSignal, type ApprovalDecision } from '../../workflows/messages';
import type { taskWorkflow } from '../../workflows/task-workflow';
import { testTaskInput } from '../support/stack';
import { captureGolden, until } from './capture-harness';
import { addToGoldenHistories } from './history-files';

captureGolden('golden-ignored-decision', async ({ model, pool, temporal, taskQueue }) => {
  model.on('golden ignored decision', { content: 'approved in the end' });
  const input = testTaskInput({ taskId: 'golden-ignored-decision', query: 'golden ignored decision', requireApproval: true });
  const handle = await temporal.workflow.start<typeof taskWorkflow>('taskWorkflow', { workflowId: input.taskId, taskQueue, args: [input] });
  const approvalId = `${input.taskId}/plan`;
  await until(async () => (await findApproval(pool, approvalId))?.status === 'pending');
  await handle.signal(approvalDecisionSignal, { approved: true } as unknown as ApprovalDecision);
  await until(
    async () => (await pool.query(`SELECT 1 FROM task_events WHERE workflow_id = $1 AND event_type = 'ERROR_OCCURRED'`, [input.taskId])).rowCount === 1,
  );
  await handle.signal(approvalDecisionSignal, { approvalId, approved: true, decidedBy: 'golden' });
  await handle.result();
  await addToGoldenHistories(temporal, input.taskId, 'ignored-decision');
});
