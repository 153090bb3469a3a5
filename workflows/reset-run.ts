import { patched, workflowInfo } from '@temporalio/workflow';
import { resetRunIdOf } from '../core/tasks/run/task-ref';
import type { ResetProgress } from './task-scope';

/** Workflows from before it re-drove a reset on the task's same store run, every recorded step answered again from the store. */
const resetStartsNewRunPatch = 'reset-starts-a-new-store-run';

/**
 * The store run this workflow run writes the task to: a Temporal reset's own (resetRunIdOf, handed
 * over by the first of its activities), the run a continued history carries on, or the task's first
 * run (keyed by the workflow id). Called once, at the top of the workflow, so that a reset to the
 * first workflow task takes the new path and runs started before it replay without it.
 */
export function taskRunOfThisRun(carried: { runId?: string; reset?: ResetProgress } = {}): { taskRunId: string; reset?: ResetProgress } {
  const { workflowId, runId, originalExecutionRunId } = workflowInfo();
  // A reset keeps the original run id of the run it resets; a new or continued run records its own.
  const isReset = patched(resetStartsNewRunPatch) && originalExecutionRunId !== runId;
  if (!isReset) return { taskRunId: carried.runId ?? workflowId, ...(carried.reset ? { reset: carried.reset } : {}) };
  return { taskRunId: resetRunIdOf(workflowId, runId), reset: { temporalRunId: runId, belowStep: 0, toolCalls: [] } };
}
