import type { RoutingInput } from '../core/tasks/run/routing';
import type { HandsOver } from '../core/tasks/run/run-handover';
import { taskRefOf, type TaskRef } from '../core/tasks/run/task-ref';

/** Which task (and whose) a workflow works for: what every part of a task's run carries whole. */
export interface TaskScope extends TaskRef {
  /** The task's workflow: its event stream, and the key of its first run (taskRunOf). */
  taskWorkflowId: string;
  /** The task's store run this workflow run writes: absent in agents' inputs from before a reset could give the task another (it was the workflow's first). */
  taskRunId?: string;
  /** Set in a Temporal reset's run: what its activities carry to hand the task over to its run (see reset-run.ts). */
  reset?: ResetProgress;
  query: string;
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
export const taskRunIdOf = (task: TaskScope) => task.taskRunId ?? task.taskWorkflowId;

/** The task scope alone, from anything that holds it (a workflow's input). */
export function taskScopeOf(source: TaskScope): TaskScope {
  return {
    ...taskRefOf(source),
    taskWorkflowId: source.taskWorkflowId,
    ...(source.taskRunId ? { taskRunId: source.taskRunId } : {}),
    ...(source.reset ? { reset: source.reset } : {}),
    query: source.query,
  };
}

/** What an activity of a reset's run carries so the first to run hands the task over (nothing outside a reset). */
export function handoverOf(task: TaskScope): HandsOver {
  const { reset } = task;
  if (!reset) return {};
  const { temporalRunId, belowStep, toolCalls } = reset;
  return {
    handover: {
      ...taskRefOf(task),
      workflowId: task.taskWorkflowId,
      runId: taskRunIdOf(task),
      temporalRunId,
      belowStep,
      toolCalls: [...toolCalls],
      atMs: Date.now(),
    },
  };
}

/** What routing activities know of a task (its caller's roles play no part). */
export function routingInputOf(task: TaskScope): RoutingInput {
  const { taskId, tenantId, userId, sessionId, taskWorkflowId: workflowId, query } = task;
  return { taskId, workflowId, runId: taskRunIdOf(task), tenantId, userId, sessionId, query, atMs: Date.now(), ...handoverOf(task) };
}
