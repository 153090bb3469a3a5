import { patched, workflowInfo } from '@temporalio/workflow';
import { resetRunIdOf } from '../core/tasks/run/task-ref';
import type { ResetProgress } from './task-scope';

/** Workflows from before it re-drove a reset on the task's same store run, every recorded step answered again from the store. */
const resetStartsNewRunPatch = 'reset-starts-a-new-store-run';
/**
 * Workflows from before a task that goes straight to its agent had its start recorded by the
 * agent's first model step (deferred-start.ts), and from before the workflow left the mode the API
 * started it with as it was instead of upserting it again. It comes after the reset patch, and
 * implies it: a new run records this patch's marker only, one marker per run as before.
 */
const firstStepStartsTaskPatch = 'first-model-step-starts-the-task';

export interface ThisRun {
  /** The store run this workflow run writes the task to. */
  taskRunId: string;
  reset?: ResetProgress;
  /** Whether the run may start the task with its first model step, and keeps the mode it was started with (firstStepStartsTaskPatch). */
  firstStepStartsTask: boolean;
}

/**
 * The store run this workflow run writes the task to: a Temporal reset's own (resetRunIdOf, handed
 * over by the first of its activities), the run a continued history carries on, or the task's first
 * run (keyed by the workflow id). Called once, at the top of the workflow, so that a reset to the
 * first workflow task takes the new path and runs started before it replay without it.
 */
export function taskRunOfThisRun(carried: { runId?: string; reset?: ResetProgress } = {}): ThisRun {
  const { workflowId, runId, originalExecutionRunId } = workflowInfo();
  const firstStepStartsTask = patched(firstStepStartsTaskPatch);
  // A reset keeps the original run id of the run it resets; a new or continued run records its own.
  const isReset = (firstStepStartsTask || patched(resetStartsNewRunPatch)) && originalExecutionRunId !== runId;
  if (!isReset) return { taskRunId: carried.runId ?? workflowId, ...(carried.reset ? { reset: carried.reset } : {}), firstStepStartsTask };
  return { taskRunId: resetRunIdOf(workflowId, runId), reset: { temporalRunId: runId, belowStep: 0, toolCalls: [] }, firstStepStartsTask };
}
