import { WorkflowFailedError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { log } from '../../core/telemetry/logger';
import { taskFailedType } from '../../workflows/messages';
import { runningTasks } from './running-tasks';
import type { TaskWorkflowResult } from '../../workflows/task-workflow-types';

// Waiting for a task's result, for the doors that answer once it has ended (AgentService's
// ExecuteTask, a tool run directly): with a timeout that cancels the task, and a caller that may go.

/**
 * After `timeoutSeconds` (0: never) the task is cancelled with a reason that says so. `clear` stops
 * the clock once the caller no longer needs it.
 */
export function cancelOnTimeout(temporal: Client, workflowId: string, timeoutSeconds: number): { timedOut(): boolean; clear(): void } {
  let timedOut = false;
  const timer =
    timeoutSeconds > 0
      ? setTimeout(() => {
          timedOut = true;
          runningTasks(temporal)
            .cancel(workflowId, `timed out after ${timeoutSeconds} s (config.timeout_seconds)`)
            .catch((err: unknown) => log().error({ err, workflowId }, 'cancelling a timed-out agent task failed'));
        }, timeoutSeconds * 1000)
      : undefined;
  return { timedOut: () => timedOut, clear: () => clearTimeout(timer) };
}

/**
 * Waits for the workflow's result, cancelling the task at its timeout. A call that goes away
 * (`abandoned`) stops the waiting, not the task: it stays durable and can be read with GetTaskStatus.
 */
export async function awaitAgentResult(
  temporal: Client,
  workflowId: string,
  timeoutSeconds: number,
  abandoned: AbortSignal,
): Promise<{ result: TaskWorkflowResult; timedOut: boolean }> {
  const timeout = cancelOnTimeout(temporal, workflowId, timeoutSeconds);
  try {
    const result = await Promise.race([
      taskResult(temporal.workflow.getHandle(workflowId).result()),
      new Promise<never>((_, reject) => abandoned.addEventListener('abort', () => reject(abandoned.reason), { once: true })),
    ]);
    return { result, timedOut: timeout.timedOut() };
  } finally {
    timeout.clear();
  }
}

/** A task's result whether it succeeded or failed (a failed task fails its workflow, with the result as details). */
async function taskResult(workflowResult: Promise<unknown>): Promise<TaskWorkflowResult> {
  try {
    return (await workflowResult) as TaskWorkflowResult;
  } catch (err) {
    const cause = err instanceof WorkflowFailedError ? err.cause : undefined;
    if (cause instanceof ApplicationFailure && cause.type === taskFailedType && cause.details?.[0]) return cause.details[0] as TaskWorkflowResult;
    throw err;
  }
}
