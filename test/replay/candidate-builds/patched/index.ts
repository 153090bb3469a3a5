// The same change as ../unpatched, behind patched(): workflows that started before it take the old
// path when they replay, so the deploy gate lets it through.
import { patched, sleep } from '@temporalio/workflow';
import { taskWorkflow as currentTaskWorkflow } from '../../../../workflows/task-workflow';
import type { TaskWorkflowInput } from '../../../../workflows/task-workflow-types';

export { agentWorkflow } from '../../../../workflows/agent-workflow';

export async function taskWorkflow(input: TaskWorkflowInput) {
  if (patched('wait-before-start')) await sleep('1 millisecond');
  return currentTaskWorkflow(input);
}
