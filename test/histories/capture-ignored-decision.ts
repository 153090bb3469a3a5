// Records the golden history of an approval decision the workflow could not apply (a signal
// without an approval id, shown on the task's stream), followed by a valid decision:
// `npx tsx test/histories/capture-ignored-decision.ts`. It adds its file to the manifest.
import { Client, Connection } from '@temporalio/client';
import { createPool } from '../../core/db/database';
import { findApproval } from '../../core/tasks/approvals';
import { createRuntimeStore } from '../../core/store';
import { approvalDecisionSignal, type ApprovalDecision } from '../../workflows/messages';
import type { taskWorkflow } from '../../workflows/task-workflow';
import { ScriptedModelServer } from '../model-server/scripted-model-server';
import '../setup/quiet-sdk-logs';
import { startTestServices } from '../setup/test-services';
import { startTestWorker, testTaskInput } from '../support/stack';
import { addToGoldenHistories } from './history-files';

const until = async (condition: () => Promise<boolean>) => {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 50));
};

async function main(): Promise<void> {
  const services = await startTestServices();
  const model = new ScriptedModelServer();
  await model.start();
  const pool = createPool(process.env.DATABASE_URL!);
  const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const temporal = new Client({ connection });
  const taskQueue = 'golden-ignored-decision';
  const worker = await startTestWorker({ taskQueue, pool, store: createRuntimeStore(pool), modelBaseURL: model.baseURL });
  try {
    model.on('golden ignored decision', { content: 'approved in the end' });
    const input = testTaskInput({ taskId: 'golden-ignored-decision', query: 'golden ignored decision', requireApproval: true });
    const handle = await temporal.workflow.start<typeof taskWorkflow>('taskWorkflow', { workflowId: input.taskId, taskQueue, args: [input] });
    const approvalId = `${input.taskId}/plan`;
    await until(async () => (await findApproval(pool, approvalId))?.status === 'pending');
    await handle.signal(approvalDecisionSignal, { approved: true } as unknown as ApprovalDecision);
    await until(async () => (await pool.query(`SELECT 1 FROM task_events WHERE workflow_id = $1 AND event_type = 'ERROR_OCCURRED'`, [input.taskId])).rowCount === 1);
    await handle.signal(approvalDecisionSignal, { approvalId, approved: true, decidedBy: 'golden' });
    await handle.result();
    await addToGoldenHistories(temporal, input.taskId, 'ignored-decision');
  } finally {
    await worker.stop();
    await connection.close();
    await pool.end();
    await model.stop();
    await services.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
