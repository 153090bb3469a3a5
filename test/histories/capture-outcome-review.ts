// Records the golden history of a tool call whose outcome was unknown and that a person had run
// again: `npx tsx test/histories/capture-outcome-review.ts`. It needs a worker killed mid-call, which
// capture.ts's in-process stack cannot do, so it runs on its own and adds its file to the manifest.
import { Client, Connection } from '@temporalio/client';
import { createPool } from '../../core/db/database';
import { findApproval } from '../../core/tasks/approvals';
import { createRuntimeStore } from '../../core/store';
import { approvalDecisionSignal } from '../../workflows/messages';
import type { taskWorkflow } from '../../workflows/task-workflow';
import { ScriptedModelServer } from '../model-server/scripted-model-server';
import '../setup/quiet-sdk-logs';
import { startTestServices } from '../setup/test-services';
import { startSideEffectPeer, toolsWithSideEffects } from '../support/side-effect-peer';
import { startTestWorker, testTaskInput } from '../support/stack';
import { startWorkerProcess } from '../support/worker-processes';
import { addToGoldenHistories } from './history-files';

const until = async (condition: () => boolean | Promise<boolean>) => {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 50));
};

async function main(): Promise<void> {
  const services = await startTestServices();
  const model = new ScriptedModelServer();
  await model.start();
  const peer = await startSideEffectPeer();
  const pool = createPool(process.env.DATABASE_URL!);
  const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const temporal = new Client({ connection });
  try {
    model.on((_text, body) => JSON.stringify(body.messages).includes('"tool_call_id":"golden-book"'), { content: 'golden booked' });
    model.on('golden outcome review', { toolCalls: [{ id: 'golden-book', name: 'effects_book', arguments: '{}' }] });
    const taskQueue = 'golden-outcome-review';
    peer.holding = true;
    const worker = startWorkerProcess(taskQueue, model.baseURL, { SIDE_EFFECT_PEER: peer.base });
    const input = testTaskInput({ taskId: 'golden-outcome-review', query: 'golden outcome review' });
    const handle = await temporal.workflow.start<typeof taskWorkflow>('taskWorkflow', { workflowId: input.taskId, taskQueue, args: [input] });
    await until(() => peer.requests.length === 1);
    worker.child.kill('SIGKILL');
    await worker.exited;
    peer.holding = false;
    const replacement = await startTestWorker({ taskQueue, pool, store: createRuntimeStore(pool), modelBaseURL: model.baseURL, tools: await toolsWithSideEffects(peer.base) });
    try {
      const approvalId = `${input.taskId}/tool/golden-book/outcome`;
      await until(async () => (await findApproval(pool, approvalId))?.status === 'pending');
      await handle.signal(approvalDecisionSignal, { approvalId, approved: true, modifiedAction: '{"run_again": true}', decidedBy: 'golden' });
      await handle.result();
    } finally {
      await replacement.stop();
    }
    await addToGoldenHistories(temporal, input.taskId, 'outcome-review');
  } finally {
    await connection.close();
    await pool.end();
    await peer.stop();
    await model.stop();
    await services.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
