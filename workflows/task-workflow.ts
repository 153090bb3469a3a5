import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  proxyActivities,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { WeftActivities } from '../activities';
import type { FinishTaskInput } from '../activities/task-lifecycle';
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

// Store writes take milliseconds; a short timeout lets a retry follow a dead worker quickly.
const { startTask, finishTask } = proxyActivities<WeftActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '200 milliseconds', maximumInterval: '10 seconds' },
});

// Model calls are long but heartbeat, so a dead worker is noticed within the heartbeat timeout.
const { runModelStep } = proxyActivities<WeftActivities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 5 },
});

const noUsage = { promptTokens: 0, completionTokens: 0, totalTokens: 0, model: '' };

function failureMessage(err: unknown): string {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return cause instanceof Error ? cause.message : String(cause);
}

/**
 * One task, end to end: record the run's start, answer with one model step (STANDARD mode), record
 * the terminal status with its usage. Every store write happens in an activity; this code only
 * decides, using workflow time for every timestamp so retries are exact.
 */
export async function taskWorkflow(input: TaskWorkflowInput): Promise<TaskWorkflowResult> {
  const { workflowId } = workflowInfo();
  const run = { taskId: input.taskId, runId: workflowId, sessionId: input.sessionId };
  upsertSearchAttributes([
    { key: taskStatusKey, value: 'RUNNING' },
    { key: executionModeKey, value: 'STANDARD' },
  ]);

  const { proceed } = await startTask({ ...input, workflowId, runId: workflowId, mode: 'STANDARD', startedAtMs: Date.now() });
  if (!proceed) {
    upsertSearchAttributes([{ key: taskStatusKey, value: 'CANCELLED' }]);
    return { status: 'CANCELLED', result: '', errorMessage: 'session ended', modelUsed: '' };
  }

  const finish = async (outcome: Omit<FinishTaskInput, 'taskId' | 'runId' | 'sessionId' | 'finishedAtMs'>) => {
    await finishTask({ ...run, ...outcome, finishedAtMs: Date.now() });
    upsertSearchAttributes([{ key: taskStatusKey, value: outcome.status }]);
    return { status: outcome.status, result: outcome.result, errorMessage: outcome.errorMessage, modelUsed: outcome.usage.model };
  };

  let outcome: Parameters<typeof finish>[0];
  try {
    const step = await runModelStep({ runId: workflowId, sessionId: input.sessionId, step: 0, query: input.query, stepAtMs: Date.now() });
    outcome = step.sessionEnded
      ? { status: 'CANCELLED', result: '', errorMessage: 'session ended', usage: noUsage, cancellationReason: 'session_ended' }
      : { status: 'COMPLETED', result: step.text, errorMessage: '', usage: { ...step.usage, model: step.model } };
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
  return finish(outcome);
}
