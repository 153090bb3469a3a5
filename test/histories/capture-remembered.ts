// Records the golden history of a STANDARD task whose long answer leaves a memory note
// (settings.rememberResults): the answer, the note's model call, its memory_write:
// `npx tsx test/histories/capture-remembered.ts`. It adds its file to the manifest.
import { launchTaskWorkflow } from '../../api/tasks/task-start';
import { taskWorkflowIdOf } from '../../core/tasks/run/task-ref';
import { memoryInstruction } from '../../workflows/memory-note';
import type { taskWorkflow } from '../../workflows/task-workflow';
import { testTaskInput, testTaskSettings } from '../support/stack';
import { captureGolden } from './capture-harness';
import { addToGoldenHistories } from './history-files';

captureGolden('golden-remembered', async ({ model, temporal, taskQueue }) => {
  const note = {
    worth_remembering: true,
    title: 'Golden facts',
    summary: 'The golden task found facts worth keeping.',
    content: 'golden content '.repeat(10),
    suggested_path: 'golden/facts.md',
  };
  model.on((text) => text.startsWith(memoryInstruction), { content: JSON.stringify(note) });
  model.on('golden remembered', { content: `golden answer ${'worth remembering '.repeat(40)}` });
  const input = testTaskInput({ taskId: 'golden-remembered', query: 'golden remembered', settings: testTaskSettings({ rememberResults: true }) });
  await launchTaskWorkflow(temporal, taskQueue, input);
  const handle = temporal.workflow.getHandle<typeof taskWorkflow>(taskWorkflowIdOf(input.taskId));
  await handle.result();
  await addToGoldenHistories(temporal, handle.workflowId, 'remembered');
});
