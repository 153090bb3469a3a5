import {
  ApplicationFailure,
  CancellationScope,
  ContinueAsNew,
  isCancellation,
  log,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Spend } from '../core/tasks/task-usage';
import type { StartTaskInput, ToolSummary } from '../core/tasks/run/task-lifecycle';
import { taskRefOf } from '../core/tasks/run/task-ref';
import { lifecycleActivities, storeActivities } from './activity-stubs';
import { createApprovalGate } from './approval-gate';
import { taskRunFieldsOf, type TaskScope } from './task-scope';
import { taskRunOfThisRun } from './reset-run';
import { deferStart, enterRun } from './run-context';
import { cancelTaskSignal, handlerDescriptions, taskFailedType, taskStatusQuery, type CancelRequest, type TaskView } from './messages';
import { taskStatusKey } from './search-attributes';
import { failed, failureMessageOf, type TaskOutcome } from './task-outcomes';
import type { TaskWorkflowInput, TaskWorkflowResult } from './task-workflow-types';
import { runTask } from './run-task';
import { steerTask } from './task-steering';
import { leavesMemoryNote, rememberResult } from './remember-result';
import { createTaskState } from './task-state';

const { recordCancellationRequest } = storeActivities;
const { startTask, finishTask } = lifecycleActivities;

/** A task that goes straight to its one agent: no routing, plan, approval, fork, continued history or direct tool call. */
const goesStraightToItsAgent = (input: TaskWorkflowInput) =>
  !input.resume && !input.autoDecompose && !input.manualPlan && !input.requireApproval && !input.reviewPlan && !input.fork && !input.directTool;

/**
 * Records the task's start: the tools the task offers, or its end when its session has ended. A
 * task that goes straight to its one agent leaves its start to whichever of its activities runs
 * first, its first model step unless a cancellation's request comes before it (run-context.ts):
 * per task, one local activity (its marker, its run in the worker, the activation it resolves) less.
 * The API starts the workflow with the status it runs with (RUNNING): nothing to upsert then.
 */
function startTheTask(input: TaskWorkflowInput, view: TaskView): Started | Promise<Started> {
  const { workflowId, startTime, typedSearchAttributes } = workflowInfo();
  // Started by something other than the API (an operator's `temporal workflow start`): the status
  // the engine-endings reconciler looks for is set here instead.
  if (typedSearchAttributes.get(taskStatusKey) === undefined) upsertSearchAttributes([{ key: taskStatusKey, value: 'RUNNING' }]);
  const allowed = input.allowedTools ? { allowedTools: input.allowedTools } : {};
  const fork = input.fork ? { fork: input.fork } : {};
  const start: StartTaskInput = {
    ...taskRefOf(input),
    workflowId,
    query: input.query,
    mode: input.directTool ? 'SIMPLE' : 'STANDARD',
    startedAtMs: startTime.getTime(),
    ...allowed,
    ...fork,
    ...(input.eval ? { eval: input.eval } : {}),
    ...(input.template ? { template: input.template } : {}),
  };
  if (goesStraightToItsAgent(input)) {
    // Its first model step records it, and returns the tools it offers: nothing to wait for here.
    deferStart(start);
    return { tools: [] };
  }
  return recordStart(start, view);
}

type Started = { tools: ToolSummary[] } | { ended: TaskWorkflowResult };

/** The start recorded by its own local activity: a session that has ended ends the task at once. */
async function recordStart(start: StartTaskInput, view: TaskView): Promise<Started> {
  const started = await startTask(start);
  if (!started.proceed) {
    view.status = 'CANCELLED';
    upsertSearchAttributes([{ key: taskStatusKey, value: 'CANCELLED' }]);
    return { ended: { status: 'CANCELLED', mode: '', result: '', errorMessage: 'session ended', modelUsed: '', tokens: 0, costUsd: 0 } };
  }
  return { tools: started.tools };
}

interface EndingTask {
  input: TaskWorkflowInput;
  task: TaskScope;
  view: TaskView;
}

/**
 * Records the task's end and ends the workflow with it: its result, or (for a failed task) a
 * failure carrying the result, so the Web UI shows the task failed.
 */
async function finishTaskRun(task: EndingTask, outcome: TaskOutcome): Promise<TaskWorkflowResult> {
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
  const run = taskRunFieldsOf(task);
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
    const instead = failed(`the task's end (${end.status}) could not be recorded: ${failureMessageOf(err)}`, end.model);
    return { end: instead, spent: await record(instead) };
  }
}

/**
 * Once the work is done: its memory note, then its end. Both run to completion, so an engine
 * cancellation arriving now cannot leave the task recorded as running.
 */
function endTheTask(ending: Parameters<typeof finishTaskRun>[0], outcome: TaskOutcome): Promise<TaskWorkflowResult> {
  return CancellationScope.nonCancellable(async () => {
    if (leavesMemoryNote(ending, outcome)) await rememberResult(ending, outcome);
    return finishTaskRun(ending, outcome);
  });
}

/**
 * One task, end to end. Records the run's start (or has its agent's first model step record it),
 * routes the task (SIMPLE, STANDARD or COMPLEX), asks for approval when required, runs one agent or
 * a DAG of agent child workflows, and records the terminal status with its usage. Every side effect is an activity; this code only decides,
 * with workflow time for every timestamp, so activity retries are exact retries.
 */
export async function taskWorkflow(given: TaskWorkflowInput): Promise<TaskWorkflowResult> {
  const { workflowId } = workflowInfo();
  // A schedule's run is the task its workflow id names: Temporal names each run of a schedule.
  const input = given.taskId ? given : { ...given, taskId: workflowId };
  const run = taskRunOfThisRun(input.resume);
  const task: TaskScope = {
    ...taskRefOf(input),
    taskWorkflowId: workflowId,
    taskRunId: run.taskRunId,
    ...(run.reset ? { reset: run.reset } : {}),
    query: input.query,
    ...(input.eval ? { eval: input.eval } : {}),
  };
  enterRun(task);
  const runId = run.taskRunId;
  const state = createTaskState();
  const { view } = state;
  setHandler(taskStatusQuery, () => view, { description: handlerDescriptions.taskStatus });
  const awaitApproval = createApprovalGate(view, { taskWorkflowId: workflowId });

  if (input.resume) {
    state.report.toolsOffered(input.resume.tools);
  } else {
    const starting = startTheTask(input, view);
    const started = starting instanceof Promise ? await starting : starting;
    if ('ended' in started) return started.ended;
    state.report.toolsOffered(started.tools);
  }

  // CancelTask: record the intent with its reason first, then cancel the work (and every child).
  const work = new CancellationScope();
  let cancelRequest: CancelRequest | undefined;
  let cancelling: Promise<void> | undefined;
  let finishing = false;
  setHandler(
    cancelTaskSignal,
    (request) => {
      if (cancelRequest || finishing) return;
      cancelRequest = request;
      cancelling = recordCancellationRequest({
        runId,
        sessionId: input.sessionId,
        reason: request.reason,
        atMs: Date.now(),
      }).then(
        () => work.cancel(),
        // Handled here: a rejection nobody awaits yet would fail the workflow task.
        (err: unknown) => log.warn('recording the cancellation request failed', { error: String(err) }),
      );
    },
    { description: handlerDescriptions.cancelTask },
  );

  const steering = steerTask({
    task,
    view,
    unsteerable: () => (finishing ? 'the task has finished' : cancelRequest ? 'the task is being cancelled' : undefined),
    cancellation: () => cancelRequest,
  });

  let outcome: TaskOutcome;
  try {
    outcome = await work.run(() =>
      runTask({ input, task, tools: state.tools, awaitApproval, hold: steering.hold, takeMessages: steering.takeMessages, report: state.report }),
    );
  } catch (err) {
    // Handing over to a fresh history is not an ending.
    if (err instanceof ContinueAsNew) throw err;
    if (!isCancellation(err)) {
      outcome = failed(failureMessageOf(err));
    } else if (cancelRequest) {
      outcome = { status: 'CANCELLED', result: '', errorMessage: `cancelled: ${cancelRequest.reason}`, model: '' };
    } else {
      // The engine cancelled the workflow (no CancelTask): record it as such, then end as cancelled.
      await CancellationScope.nonCancellable(() =>
        finishTaskRun({ input, task, view }, { status: 'CANCELLED', result: '', errorMessage: 'cancelled', model: '' }),
      );
      throw err;
    }
  }
  finishing = true;
  // A CancelTask whose request is still being recorded: its record comes before the end.
  if (cancelling) await cancelling;
  return endTheTask({ input, task, view }, outcome);
}
