import { defaultPayloadConverter } from '@temporalio/common';
import type { Headers, WorkflowInterceptorsFactory } from '@temporalio/workflow';
import { runContextHeader, type RunContext } from '../core/tasks/run/run-context';
import type { StartTaskInput } from '../core/tasks/run/task-lifecycle';
import { taskRefOf } from '../core/tasks/run/task-ref';
import { taskRunIdOf, type TaskScope } from './task-scope';

// The run context (core/tasks/run/run-context.ts) as this workflow knows it, and the outbound
// interceptor that puts it in the header of every activity the workflow schedules. The state is
// this module's: Temporal gives each workflow execution its own copy of the workflow modules, and
// only the task workflow and the agent workflow write it (enterRun, deferStart, startRecorded).

let runScope: TaskScope | undefined;
let pendingStart: StartTaskInput | undefined;

/** The task this workflow run works for: in a reset's run, its activities hand the task over to it (the scope's reset progress, read as each is scheduled). */
export function enterRun(task: TaskScope): void {
  runScope = task;
}

/** Leaves the task's start to whichever activity runs first, until the first model step has returned (startRecorded). */
export function deferStart(start: StartTaskInput): void {
  pendingStart = start;
}

/** The start the next activity carries, if it may not be recorded yet. */
export const startPending = (): StartTaskInput | undefined => pendingStart;

/** The first model step has returned: the start is recorded. */
export function startRecorded(): void {
  pendingStart = undefined;
}

/** What an activity scheduled now carries: the reset's handover (with workflow time and progress as of now), and the pending start. */
function runContextNow(): RunContext {
  const reset = runScope?.reset;
  const handover = reset && {
    ...taskRefOf(runScope!),
    workflowId: runScope!.taskWorkflowId,
    runId: taskRunIdOf(runScope!),
    temporalRunId: reset.temporalRunId,
    belowStep: reset.belowStep,
    toolCalls: [...reset.toolCalls],
    atMs: Date.now(),
  };
  return { ...(handover ? { handover } : {}), ...(pendingStart ? { start: pendingStart } : {}) };
}

function withRunContext(headers: Headers): Headers {
  const context = runContextNow();
  if (!context.handover && !context.start) return headers;
  return { ...headers, [runContextHeader]: defaultPayloadConverter.toPayload(context) };
}

export const interceptors: WorkflowInterceptorsFactory = () => ({
  outbound: [
    {
      scheduleActivity: (input, next) => next({ ...input, headers: withRunContext(input.headers) }),
      scheduleLocalActivity: (input, next) => next({ ...input, headers: withRunContext(input.headers) }),
    },
  ],
});
