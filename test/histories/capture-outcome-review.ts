// Records the golden history of a tool call whose outcome was unknown and that a person had run
// again: `npx tsx test/histories/capture-outcome-review.ts`. It needs a worker killed mid-call, which
// capture.ts's in-process stack cannot do, so it runs on its own and adds its file to the manifest.
import { createRuntimeStore } from '../../core/store';
import { findApproval } from '../../core/tasks/approvals';
import { approvalDecisionSignal } from '../../workflows/messages';
import type { taskWorkflow } from '../../workflows/task-workflow';
import { startSideEffectPeer, toolsWithSideEffects } from '../support/side-effect-peer';
import { startTestWorker, testTaskInput } from '../support/stack';
import { startWorkerProcess } from '../support/worker-processes';
import { captureGolden, until } from './capture-harness';
import { addToGoldenHistories } from './history-files';

captureGolden(
  'golden-outcome-review',
  async ({ model, pool, temporal, taskQueue }) => {
    const peer = await startSideEffectPeer();
    try {
      model.on((_text, body) => JSON.stringify(body.messages).includes('"tool_call_id":"golden-book"'), { content: 'golden booked' });
      model.on('golden outcome review', { toolCalls: [{ id: 'golden-book', name: 'effects_book', arguments: '{}' }] });
      peer.holding = true;
      const worker = startWorkerProcess(taskQueue, model.baseURL, { SIDE_EFFECT_PEER: peer.base });
      const input = testTaskInput({ taskId: 'golden-outcome-review', query: 'golden outcome review' });
      const handle = await temporal.workflow.start<typeof taskWorkflow>('taskWorkflow', { workflowId: input.taskId, taskQueue, args: [input] });
      await until(() => peer.requests.length === 1);
      worker.child.kill('SIGKILL');
      await worker.exited;
      peer.holding = false;
      const replacement = await startTestWorker({
        taskQueue,
        pool,
        store: createRuntimeStore(pool),
        modelBaseURL: model.baseURL,
        tools: await toolsWithSideEffects(peer.base),
      });
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
      await peer.stop();
    }
  },
  // The scenario starts the worker it kills.
  { withWorker: false },
);
