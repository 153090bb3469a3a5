import type { TaskRunHandover } from './run-handover';
import type { StartTaskInput } from './task-lifecycle';

/**
 * What an activity of a task's run may have to record before its own write, whatever the activity
 * is: it travels as a Temporal header, set by the workflows' outbound interceptor
 * (workflows/run-context.ts) and applied by the activities' inbound interceptor
 * (activities/run-context-interceptor.ts), so no activity's input carries it.
 */
export interface RunContext {
  /** In a Temporal reset's run: its claim on the task, taken by the first of its activities to run (run-handover.ts). */
  handover?: TaskRunHandover;
  /**
   * A single-agent task's start, until the first model step that records it has returned: whichever
   * activity runs first records it (the model step, or a cancellation's request). A start already
   * recorded stays as it was.
   */
  start?: StartTaskInput;
}

/** The header an activity's run context travels in. */
export const runContextHeader = 'weft-run-context';
