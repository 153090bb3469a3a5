import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { cancelTaskSignal, clientToolResultsUpdate, type ClientToolResults } from '../../workflows/messages';
import { preconditionFailed } from './task-errors';

// What the doors do to a running task through its workflow, in one place: the one cancel (each
// door decides first whether the caller may), and the results of an OpenAI client's own tools.

export interface RunningTasks {
  /** Asks the task to cancel, saying why; false when its workflow has already ended. */
  cancel(workflowId: string, reason: string): Promise<boolean>;
  /** The client's tool results, refused (precondition failed, with the workflow's reason) unless the task waits for exactly these. */
  sendToolResults(workflowId: string, results: ClientToolResults['results']): Promise<void>;
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
  };
}
