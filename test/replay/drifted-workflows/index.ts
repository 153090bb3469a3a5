// A deliberately changed taskWorkflow: it calls the model before recording the run's start.
// Replaying a real history against it must fail, proving replay notices changed workflow code.
import { proxyActivities } from '@temporalio/workflow';
import type { WeftActivities } from '../../../activities';
import type { TaskWorkflowInput } from '../../../workflows/task-workflow-types';

const { runModelStep } = proxyActivities<WeftActivities>({ startToCloseTimeout: '1 minute' });

export async function taskWorkflow(input: TaskWorkflowInput): Promise<string> {
  const answer = await runModelStep({
    taskId: input.taskId,
    runId: input.taskId,
    sessionId: '',
    agentId: 'main',
    step: 0,
    seed: input.query,
    stepAtMs: Date.now(),
  });
  return answer.kind === 'reply' ? answer.text : '';
}
