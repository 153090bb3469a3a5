// A candidate build whose taskWorkflow waits a moment before it starts, without patched(): a
// workflow that started on the current build cannot replay on it, and the deploy gate must say so.
import { sleep } from '@temporalio/workflow';
import { taskWorkflow as currentTaskWorkflow } from '../../../../workflows/task-workflow';
import type { TaskWorkflowInput } from '../../../../workflows/task-workflow-types';

export { agentWorkflow } from '../../../../workflows/agent-workflow';

export async function taskWorkflow(input: TaskWorkflowInput) {
  await sleep('1 millisecond');
  return currentTaskWorkflow(input);
}
