import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Pool } from 'pg';
import type { Principal } from '../../core/auth/api-keys';
import { findTask, type TaskRecord } from '../../core/tasks/task-index';
import { tenantIdKey } from '../../workflows/search-attributes';
import { invalid, notFound } from './task-errors';
import { taskIdsReferencedBy } from './task-ids';
import { taskWorkflowIdOf } from '../../core/tasks/run/task-ref';

/**
 * The tenant that owns a task's workflow (from its search attributes), the workflow's status and
 * what was asked (the fingerprint, absent on workflows started before it was kept), or undefined
 * when Temporal does not know it.
 */
export async function describeTaskWorkflow(
  temporal: Client,
  workflowId: string,
): Promise<{ tenantId: string; status: string; requestFingerprint?: string } | undefined> {
  try {
    const description = await temporal.workflow.getHandle(workflowId).describe();
    const fingerprint = description.memo?.[requestFingerprintMemo];
    return {
      tenantId: description.typedSearchAttributes.get(tenantIdKey) ?? '',
      status: description.status.name,
      ...(typeof fingerprint === 'string' ? { requestFingerprint: fingerprint } : {}),
    };
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
}

/** The memo field a task's workflow keeps its submission's fingerprint in. */
export const requestFingerprintMemo = 'weftRequestFingerprint';

export interface OwnTask {
  taskId: string;
  workflowId: string;
  /** Absent while the workflow exists but has not indexed the task yet (it is QUEUED). */
  record?: TaskRecord;
  /** Without a record: the workflow's Temporal status (RUNNING, or how Temporal ended it). */
  workflowStatus?: string;
}

/** What finding a task needs: the task index, and Temporal for a task not indexed yet. */
export interface TaskOwnershipDeps {
  pool: Pool;
  temporal: Client;
}

/**
 * The caller's own task, by its id or the name the caller gave it: another tenant's task is as
 * unknown as a missing one.
 */
export async function ownTaskOf(deps: TaskOwnershipDeps, reference: string, principal: Principal): Promise<OwnTask> {
  if (!reference) throw invalid('task_id is required');
  // Ids that no task can have never reach Temporal.
  for (const taskId of taskIdsReferencedBy(reference, principal.tenantId)) {
    const record = await findTask(deps.pool, taskId);
    if (record) {
      if (record.tenantId === principal.tenantId) return { taskId, workflowId: record.workflowId, record };
      continue;
    }
    const workflowId = taskWorkflowIdOf(taskId);
    const workflow = await describeTaskWorkflow(deps.temporal, workflowId);
    if (workflow?.tenantId === principal.tenantId) return { taskId, workflowId, workflowStatus: workflow.status };
  }
  throw notFound(`task ${reference} not found`);
}
