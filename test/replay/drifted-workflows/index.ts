// A deliberately changed taskWorkflow: it calls the model before recording the run's start.
// Replaying a real history against it must fail, proving replay notices changed workflow code.
import { proxyActivities } from '@temporalio/workflow';
import type { TaskActivities } from '../../../activities/task-activities';
import type { TaskWorkflowInput } from '../../../workflows/task-workflow';

const { callModel } = proxyActivities<TaskActivities>({ startToCloseTimeout: '1 minute' });

export async function taskWorkflow(input: TaskWorkflowInput): Promise<string> {
  const answer = await callModel({ query: input.query });
  return answer.text;
}
