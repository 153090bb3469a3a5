import { workflowInfo } from '@temporalio/workflow';
import { resetRunIdOf, taskRunIdOr } from '../core/tasks/run/task-ref';
import type { ResetProgress } from './task-scope';

export interface ThisRun {
  /** The store run this workflow run writes the task to. */
  taskRunId: string;
  reset?: ResetProgress;
}

/**
 * The store run this workflow run writes the task to: a Temporal reset's own (resetRunIdOf, handed
 * over by the first of its activities), the run a continued history carries on, or the task's first
 * run (keyed by the workflow id). Called once, at the top of the workflow, so that a reset to the
 * first workflow task sees it is one.
 */
export function taskRunOfThisRun(carried: { runId?: string; reset?: ResetProgress } = {}): ThisRun {
  const { workflowId, runId, originalExecutionRunId } = workflowInfo();
  // A reset keeps the original run id of the run it resets; a new or continued run records its own.
  const isReset = originalExecutionRunId !== runId;
  if (!isReset) return { taskRunId: taskRunIdOr(carried.runId, workflowId), ...(carried.reset ? { reset: carried.reset } : {}) };
  return { taskRunId: resetRunIdOf(workflowId, runId), reset: { temporalRunId: runId, belowStep: 0, toolCalls: [] } };
}
