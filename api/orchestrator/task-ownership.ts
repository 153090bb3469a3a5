import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Pool } from 'pg';
import type { Principal } from '../../core/auth/api-keys';
import { findTask, type TaskRecord } from '../../core/tasks/task-index';
import { tenantIdKey } from '../../workflows/search-attributes';
import { invalidArgument, notFound } from '../grpc/grpc-errors';
import { isValidTaskId } from './task-ids';
import { taskWorkflowIdOf } from '../../core/tasks/run/task-ref';

/**
 * The tenant that owns a task's workflow (from its search attributes), or undefined when Temporal
 * does not know it.
 */
export async function workflowTenant(temporal: Client, workflowId: string): Promise<string | undefined> {
  try {
    const description = await temporal.workflow.getHandle(workflowId).describe();
    return description.typedSearchAttributes.get(tenantIdKey) ?? '';
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
}

/**
 * The caller's own task: another tenant's task is as unknown as a missing one. Undefined when the
 * workflow exists but has not indexed the task yet (it is QUEUED).
 */
export async function ownTaskOf(
  deps: { pool: Pool; temporal: Client },
  taskId: string,
  principal: Principal,
): Promise<TaskRecord | undefined> {
  if (!taskId) throw invalidArgument('task_id is required');
  // Ids that no task can have never reach Temporal.
  if (!isValidTaskId(taskId)) throw notFound(`task ${taskId} not found`);
  const task = await findTask(deps.pool, taskId);
  if (task) {
    if (task.tenantId !== principal.tenantId) throw notFound(`task ${taskId} not found`);
    return task;
  }
  if ((await workflowTenant(deps.temporal, taskWorkflowIdOf(taskId))) !== principal.tenantId) throw notFound(`task ${taskId} not found`);
  return undefined;
}
