// A deliberately changed taskWorkflow: it calls the model before recording the run's start.
// Replaying a real history against it must fail, proving replay notices changed workflow code.
import { proxyActivities } from '@temporalio/workflow';
import type { WeftActivities } from '../../../activities';
import type { TaskWorkflowInput } from '../../../workflows/task-workflow';

const { runModelStep } = proxyActivities<WeftActivities>({ startToCloseTimeout: '1 minute' });

export async function taskWorkflow(input: TaskWorkflowInput): Promise<string> {
  const answer = await runModelStep({ runId: input.taskId, sessionId: '', step: 0, query: input.query, stepAtMs: Date.now() });
  return answer.sessionEnded ? '' : answer.text;
}
