import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { Pool } from 'pg';
import { launchTaskWorkflow } from '../../api/tasks/task-start';
import { findTask, type TaskRecord } from '../../core/tasks/task-index';
import { taskWorkflowIdOf } from '../../core/tasks/run/task-ref';
import type { TaskWorkflowInput } from '../../workflows/task-workflow-types';

/**
 * Starts the task, or finds it started (an eval run again under the same id goes on where it
 * stopped), and returns its record once its workflow has ended. A task that failed ends too: its
 * record says how.
 */
export async function runToEnd(deps: { pool: Pool; temporal: Client; taskQueue: string }, input: TaskWorkflowInput): Promise<TaskRecord> {
  try {
    await launchTaskWorkflow(deps.temporal, deps.taskQueue, input);
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
  const workflowId = taskWorkflowIdOf(input.taskId);
  await deps.temporal.workflow
    .getHandle(workflowId)
    .result()
    .catch(() => undefined);
  const task = await findTask(deps.pool, input.taskId);
  if (!task) throw new Error(`task ${input.taskId} ended without a record in the store (see its workflow ${workflowId})`);
  return task;
}

/** Submit to end, as the store saw it. */
export const latencyOf = (task: TaskRecord) => (task.completedAt ? task.completedAt.getTime() - task.createdAt.getTime() : 0);
