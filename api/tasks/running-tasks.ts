import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { cancelTaskSignal, clientToolResultsUpdate, taskStatusQuery, type ClientToolResults, type TaskView } from '../../workflows/messages';
import { notFound, preconditionFailed } from './task-errors';

// What the doors ask of a task's workflow, in one place: the one cancel (each door decides first
// whether the caller may), the results of an OpenAI client's own tools, its live view, and its
// history.

export interface RunningTasks {
  /** Asks the task to cancel, saying why; false when its workflow has already ended. */
  cancel(workflowId: string, reason: string): Promise<boolean>;
  /** The client's tool results, refused (precondition failed, with the workflow's reason) unless the task waits for exactly these. */
  sendToolResults(workflowId: string, results: ClientToolResults['results']): Promise<void>;
  /** The running workflow's live view; undefined when it cannot answer (finished, or no worker yet). */
  view(workflowId: string): Promise<TaskView | undefined>;
  /** The workflow's Temporal history (of `runId`, or its latest run); not found when there is no such run. */
  history(workflowId: string, runId?: string): Promise<temporal.api.history.v1.IHistory>;
}

export function runningTasks(temporal: Client): RunningTasks {
  return {
    async cancel(workflowId, reason) {
      try {
        await temporal.workflow.getHandle(workflowId).signal(cancelTaskSignal, { reason });
        return true;
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return false;
        throw err;
      }
    },

    async sendToolResults(workflowId, results) {
      try {
        await temporal.workflow.getHandle(workflowId).executeUpdate(clientToolResultsUpdate, { args: [{ results }] });
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) throw preconditionFailed('it has ended');
        if (!(err instanceof WorkflowUpdateFailedError)) throw err;
        throw preconditionFailed(err.cause instanceof Error ? err.cause.message : err.message);
      }
    },

    async view(workflowId) {
      try {
        return await temporal.workflow.getHandle(workflowId).query(taskStatusQuery);
      } catch {
        return undefined;
      }
    },

    history: (workflowId, runId) =>
      temporal.workflow
        .getHandle(workflowId, runId)
        .fetchHistory()
        .catch((err: unknown) => {
          throw err instanceof WorkflowNotFoundError ? notFound(`run ${runId ?? ''} of workflow ${workflowId} not found`) : err;
        }),
  };
}
