import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  proxyActivities,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { FinishTaskInput, ModelStepResult, TaskActivities } from '../activities/task-activities';
import { executionModeKey, taskStatusKey } from './search-attributes';

export interface TaskWorkflowInput {
  taskId: string;
  tenantId: string;
  userId: string;
  sessionId: string;
  query: string;
}

export interface TaskWorkflowResult {
  status: FinishTaskInput['status'];
  result: string;
  errorMessage: string;
  modelUsed: string;
}

const { startTask, finishTask } = proxyActivities<TaskActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 milliseconds', maximumInterval: '10 seconds' },
});

const { callModel } = proxyActivities<TaskActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 5 },
});

const noUsage = { promptTokens: 0, completionTokens: 0, totalTokens: 0, model: '' };

function failureMessage(err: unknown): string {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return cause instanceof Error ? cause.message : String(cause);
}

/**
 * One task, end to end: record the run's start, answer with one model call (STANDARD mode),
 * record the terminal status with its usage. Every store write happens in an activity; this code
 * only decides, using workflow time for every timestamp so retries are exact.
 */
export async function taskWorkflow(input: TaskWorkflowInput): Promise<TaskWorkflowResult> {
  const { workflowId } = workflowInfo();
  const run = { taskId: input.taskId, runId: workflowId, sessionId: input.sessionId };
  upsertSearchAttributes([
    { key: taskStatusKey, value: 'RUNNING' },
    { key: executionModeKey, value: 'STANDARD' },
  ]);

  const { proceed } = await startTask({
    ...input,
    workflowId,
    runId: workflowId,
    mode: 'STANDARD',
    startedAtMs: Date.now(),
  });
  if (!proceed) {
    upsertSearchAttributes([{ key: taskStatusKey, value: 'CANCELLED' }]);
    return { status: 'CANCELLED', result: '', errorMessage: 'session ended', modelUsed: '' };
  }

  const finish = async (outcome: Omit<FinishTaskInput, 'taskId' | 'runId' | 'sessionId' | 'finishedAtMs'>) => {
    await finishTask({ ...run, ...outcome, finishedAtMs: Date.now() });
    upsertSearchAttributes([{ key: taskStatusKey, value: outcome.status }]);
  };

  let answer: ModelStepResult;
  try {
    answer = await callModel({ query: input.query });
  } catch (err) {
    if (isCancellation(err)) {
      // The engine cancelled us; the terminal record must still be written, so step outside the scope.
      await CancellationScope.nonCancellable(() =>
        finish({ status: 'CANCELLED', result: '', errorMessage: 'task cancelled', usage: noUsage }),
      );
      throw err;
    }
    const errorMessage = failureMessage(err);
    await finish({ status: 'FAILED', result: '', errorMessage, usage: noUsage });
    throw ApplicationFailure.nonRetryable(`task failed: ${errorMessage}`, 'TaskFailed');
  }

  const usage = { ...answer.usage, model: answer.model };
  await finish({ status: 'COMPLETED', result: answer.text, errorMessage: '', usage });
  return { status: 'COMPLETED', result: answer.text, errorMessage: '', modelUsed: answer.model };
}
