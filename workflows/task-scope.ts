import type { TaskEval } from '../core/tasks/run/eval-tools';
import type { RoutingInput } from '../core/tasks/run/step-types';
import { taskRefOf, taskRunIdOr, type TaskRef } from '../core/tasks/run/task-ref';

/** Which task (and whose) a workflow works for: what every part of a task's run carries whole. */
export interface TaskScope extends TaskRef {
  /**
   * The task's workflow: its event stream, and the key of its first run (taskRunOf). Named apart
   * here because an agent's workflow has an id of its own; core's inputs, where `workflowId` is
   * always the task's, get it from taskRunFieldsOf.
   */
  taskWorkflowId: string;
  /** The task's store run this workflow run writes: absent in agents' inputs from before a reset could give the task another (it was the workflow's first). */
  taskRunId?: string;
  /** Set in a Temporal reset's run: what its activities carry to hand the task over to its run (reset-run.ts, run-context.ts). */
  reset?: ResetProgress;
  query: string;
  /** Set when the task is one case of an eval: its tool calls are answered from the recorded task (eval-tools.ts). */
  eval?: TaskEval;
}

/**
 * A reset run's place in the task, kept up to date by the task's own agent loop: the model steps
 * done, and the tool calls of the next step that ran. Until the first activity of the reset run
 * runs, all of it was done by the run the reset replaced (it is the history the reset kept). One
 * object per workflow run: every copy of the task scope in it holds the same one, so what the loop
 * notes is what the task's end and approvals hand over.
 */
export interface ResetProgress {
  temporalRunId: string;
  belowStep: number;
  toolCalls: string[];
}

/** The child workflow that runs one agent of a task's plan. */
export const agentWorkflowIdOf = (taskWorkflowId: string, agentId: string) => `${taskWorkflowId}/agent/${agentId}`;

/** The task's store run. */
export const taskRunIdOf = (task: TaskScope) => taskRunIdOr(task.taskRunId, task.taskWorkflowId);

/** The task scope alone, from anything that holds it (a workflow's input). */
export function taskScopeOf(source: TaskScope): TaskScope {
  return {
    ...taskRefOf(source),
    taskWorkflowId: source.taskWorkflowId,
    ...(source.taskRunId ? { taskRunId: source.taskRunId } : {}),
    ...(source.reset ? { reset: source.reset } : {}),
    query: source.query,
    ...(source.eval ? { eval: source.eval } : {}),
  };
}

/** The task's stream and store run, as core's inputs name them. */
export const taskRunFieldsOf = (task: TaskScope) => ({ workflowId: task.taskWorkflowId, runId: taskRunIdOf(task) });

/** What routing activities know of a task (its caller's roles play no part). */
export function routingInputOf(task: TaskScope): RoutingInput {
  const { taskId, tenantId, userId, sessionId, query } = task;
  return { taskId, ...taskRunFieldsOf(task), tenantId, userId, sessionId, query, atMs: Date.now() };
}
