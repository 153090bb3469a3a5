import type { RoutingInput } from '../core/tasks/run/routing';
import { taskRefOf, type TaskRef } from '../core/tasks/run/task-ref';

/** Which task (and whose) a workflow works for: what every part of a task's run carries whole. */
export interface TaskScope extends TaskRef {
  /** The task's workflow: its event stream, and the key of its own run (taskRunOf). */
  taskWorkflowId: string;
  query: string;
}

/** The task scope alone, from anything that holds it (a workflow's input). */
export function taskScopeOf(source: TaskScope): TaskScope {
  return { ...taskRefOf(source), taskWorkflowId: source.taskWorkflowId, query: source.query };
}

/** What routing activities know of a task (its caller's roles play no part). */
export function routingInputOf(task: TaskScope): RoutingInput {
  const { taskId, tenantId, userId, sessionId, taskWorkflowId: workflowId, query } = task;
  return { taskId, workflowId, tenantId, userId, sessionId, query, atMs: Date.now() };
}
