import type { StartTaskInput } from '../core/tasks/run/task-lifecycle';
import type { TaskWorkflowInput } from './task-workflow-types';

/**
 * A task that goes straight to its one agent has its start recorded by that agent's first model
 * step rather than by a local activity of its own: per task, one local activity (its marker, its
 * run in the worker, the workflow activation it resolves) less. Until that step returns, the start
 * may not be recorded yet: each lifecycle activity the workflow runs meanwhile (a cancellation's
 * request, the task's end) carries it, and records it first (CarriesStart in
 * core/tasks/run/task-lifecycle.ts).
 */
export interface DeferredStart {
  /** The start, until the first model step has returned. */
  pending?: StartTaskInput;
}

/** A task that goes straight to its one agent: no routing, plan, approval, fork, continued history or direct tool call. */
export const goesStraightToItsAgent = (input: TaskWorkflowInput) =>
  !input.resume && !input.autoDecompose && !input.manualPlan && !input.requireApproval && !input.fork && !input.directTool;

/** What an activity carries of the task's start: the start, while it may not be recorded yet. */
export const carriedStart = (deferred?: DeferredStart) => (deferred?.pending ? { start: deferred.pending } : {});
