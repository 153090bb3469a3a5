import { ApplicationFailure, upsertSearchAttributes } from '@temporalio/workflow';
import type { Spend } from '../core/tasks/task-usage';
import { lifecycleActivities } from './activity-stubs';
import { taskFailedType, type TaskView } from './messages';
import { taskStatusKey } from './search-attributes';
import { failed, failureMessageOf, type TaskOutcome } from './task-outcomes';
import type { TaskWorkflowInput, TaskWorkflowResult } from './task-workflow-types';
import { taskRunIdOf, type TaskScope } from './task-scope';
import { Patches, takesNewPath } from './patches';

const { finishTask } = lifecycleActivities;

interface EndingTask {
  input: TaskWorkflowInput;
  task: TaskScope;
  view: TaskView;
}

/**
 * Records the task's end and ends the workflow with it: its result, or (for a failed task) a
 * failure carrying the result, so the Web UI shows the task failed.
 */
export async function finishTaskRun(task: EndingTask, outcome: TaskOutcome): Promise<TaskWorkflowResult> {
  const { end, spent } = await recordEnd(task, outcome);
  const { view } = task;
  // One token count everywhere: the store's (histories from before it was returned carry none).
  if (spent) {
    view.tokens = spent.tokens;
    view.costUsd = spent.costUsd;
  }
  view.status = end.status;
  view.progress = 1;
  upsertSearchAttributes([{ key: taskStatusKey, value: end.status }]);
  const result: TaskWorkflowResult = {
    status: end.status,
    mode: view.mode,
    result: end.result,
    errorMessage: end.errorMessage,
    modelUsed: end.model,
    tokens: view.tokens,
    costUsd: view.costUsd,
    ...(end.code ? { code: end.code } : {}),
  };
  if (end.status === 'FAILED')
    throw ApplicationFailure.nonRetryable(`task failed: ${end.code ? `${end.code}: ` : ''}${end.errorMessage}`, taskFailedType, result);
  return result;
}

/**
 * Records the task's end. An end that cannot be recorded (a permanent store error, or the store
 * activities' retry budget spent) is replaced by a failure naming why, so the store never keeps a
 * finished task RUNNING; when even that cannot be recorded, the workflow fails.
 */
async function recordEnd({ input, task }: EndingTask, end: TaskOutcome): Promise<{ end: TaskOutcome; spent: Spend | undefined }> {
  const run = { runId: taskRunIdOf(task), workflowId: task.taskWorkflowId };
  const record = (outcome: TaskOutcome) =>
    finishTask({
      taskId: input.taskId,
      ...run,
      sessionId: input.sessionId,
      ...outcome,
      finishedAtMs: Date.now(),
    });
  try {
    return { end, spent: await record(end) };
  } catch (err) {
    if (!takesNewPath(Patches.unrecordableEndFailsTask)) throw err;
    const instead = failed(`the task's end (${end.status}) could not be recorded: ${failureMessageOf(err)}`, end.model);
    return { end: instead, spent: await record(instead) };
  }
}
