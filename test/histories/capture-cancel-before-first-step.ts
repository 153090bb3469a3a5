// Records the golden history of a STANDARD task cancelled (CancelTask) before any worker took it:
// its start, deferred to its first model step, is carried by the cancellation's request and by the
// task's end instead: `npx tsx test/histories/capture-cancel-before-first-step.ts`. It adds its
// file to the manifest.
import { launchTaskWorkflow } from '../../api/tasks/task-start';
import { createRuntimeStore } from '../../core/store';
import { taskWorkflowIdOf } from '../../core/tasks/run/task-ref';
import { cancelTaskSignal } from '../../workflows/messages';
import type { taskWorkflow } from '../../workflows/task-workflow';
import { startTestWorker, testTaskInput } from '../support/stack';
import { captureGolden } from './capture-harness';
import { addToGoldenHistories } from './history-files';

captureGolden(
  'golden-cancel-before-first-step',
  async ({ model, pool, temporal, taskQueue }) => {
    model.on('golden cancel before first step', { content: 'never wanted', delayMs: 2_000 });
    const input = testTaskInput({ taskId: 'golden-cancel-before-first-step', query: 'golden cancel before first step' });
    await launchTaskWorkflow(temporal, taskQueue, input);
    const handle = temporal.workflow.getHandle<typeof taskWorkflow>(taskWorkflowIdOf(input.taskId));
    await handle.signal(cancelTaskSignal, { reason: 'golden cancel before first step' });
    const worker = await startTestWorker({ taskQueue, pool, store: createRuntimeStore(pool), modelBaseURL: model.baseURL });
    try {
      await handle.result();
    } finally {
      await worker.stop();
    }
    await addToGoldenHistories(temporal, handle.workflowId, 'cancel-before-first-step');
  },
  { withWorker: false },
);
