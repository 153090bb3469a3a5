import { createHash } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { Pool } from 'pg';
import type { Principal } from '../../core/auth/api-keys';
import { claimSession } from '../../core/sessions/session-tenants';
import { requireSessionOpenForWork } from '../../core/sessions/conversations';
import type { TenantAdmission } from './tenant-admission';
import { evalKey, executionModeKey, sessionIdKey, taskStatusKey, tenantIdKey, userIdKey } from '../../workflows/search-attributes';
import type { taskWorkflow } from '../../workflows/task-workflow';
import type { TaskWorkflowInput } from '../../workflows/task-workflow-types';
import { taskMetadata } from '../../workflows/ui-metadata';
import { conflict, invalid, notFound } from './task-errors';
import { taskIdFor, tenantScopedTaskId } from './task-ids';
import { taskInputFrom, type SubmissionLimits, type TaskSubmission } from './task-submission';
import { taskWorkflowIdOf } from '../../core/tasks/run/task-ref';
import { describeTaskWorkflow, requestFingerprintMemo } from './task-ownership';

const maxIdempotencyKeyLength = 255;

/**
 * The task id of a submission: derived from the caller's metadata.task_id, else from an
 * `idempotency-key` header (the same name or key of the same tenant always names the same task),
 * else a new one.
 */
export function submittedTaskId(requestedTaskId: string, idempotencyKey: string | undefined, principal: Principal): string {
  if (requestedTaskId || idempotencyKey === undefined) return taskIdFor(requestedTaskId, principal.tenantId);
  if (idempotencyKey === '' || idempotencyKey.length > maxIdempotencyKeyLength)
    throw invalid(`idempotency-key must be 1-${maxIdempotencyKeyLength} characters`);
  return tenantScopedTaskId(principal.tenantId, idempotencyKey);
}

/** A submission's task input, checked, under the id its Idempotency-Key names (or a new one): for doors whose protocol names no task id. */
export function submittedTaskInput(
  principal: Principal,
  idempotencyKey: string | undefined,
  submission: TaskSubmission,
  limits: SubmissionLimits,
): TaskWorkflowInput {
  return taskInputFrom(submission, { taskId: submittedTaskId('', idempotencyKey, principal), principal }, limits);
}

/** How a door starts a task: as SubmitTask does (tenant shares, sessions, idempotency), with the limits its input is checked against. */
export interface TaskStarter {
  start(input: TaskWorkflowInput, principal: Principal, requestFingerprint: string): Promise<{ workflowId: string }>;
  limits: SubmissionLimits;
}

/** The search attributes operators find a task's workflow by, as it starts: the status it runs with, so the workflow need not upsert it. */
export const taskSearchAttributes = (input: TaskWorkflowInput) => [
  { key: taskStatusKey, value: 'RUNNING' },
  { key: executionModeKey, value: input.manualPlan ? 'COMPLEX' : input.autoDecompose ? 'ROUTING' : 'STANDARD' },
  { key: userIdKey, value: input.userId },
  { key: sessionIdKey, value: input.sessionId },
  { key: tenantIdKey, value: input.tenantId },
  ...(input.eval ? [{ key: evalKey, value: input.eval.evalId }] : []),
];

/** Temporal's limit on a fairness key. */
const fairnessKeyBytes = 64;

/**
 * Each tenant is a fairness key of the task queue: where tasks wait for a worker, a server with
 * fairness on (`make cluster`) dispatches each tenant's in turn, so a tenant's backlog does not
 * queue another's work behind it. The task's activities and agents inherit it.
 */
export function taskPriority(input: TaskWorkflowInput): { priority?: { fairnessKey: string } } {
  if (!input.tenantId) return {};
  const key = Buffer.byteLength(input.tenantId) <= fairnessKeyBytes ? input.tenantId : createHash('sha256').update(input.tenantId).digest('hex');
  return { priority: { fairnessKey: key } };
}

/** Starts a task's workflow with the search attributes operators find it by, and what was asked for it. */
export async function launchTaskWorkflow(temporal: Client, taskQueue: string, input: TaskWorkflowInput, requestFingerprint?: string): Promise<void> {
  await temporal.workflow.start<typeof taskWorkflow>('taskWorkflow', {
    workflowId: taskWorkflowIdOf(input.taskId),
    taskQueue,
    args: [input],
    ...taskMetadata(input),
    ...(requestFingerprint ? { memo: { [requestFingerprintMemo]: requestFingerprint } } : {}),
    // A task id names one workflow forever: a repeated submit finds it instead of starting another.
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    typedSearchAttributes: taskSearchAttributes(input),
    ...taskPriority(input),
  });
}

/**
 * Starts the task's workflow, or finds it when the same request was submitted before under its id
 * (a retried submit). A task id another tenant already used is refused, and so is the same id with
 * a different request, another tenant's session, and a task of a tenant over its share.
 */
export async function startTaskWorkflow(
  deps: { temporal: Client; taskQueue: string; pool: Pool; admission: TenantAdmission },
  input: TaskWorkflowInput,
  principal: Principal,
  requestFingerprint: string,
): Promise<{ workflowId: string; alreadyStarted: boolean }> {
  await deps.admission.admitTask(principal.tenantId);
  if (input.sessionId) {
    if (!(await claimSession(deps.pool, principal.tenantId, input.sessionId))) throw notFound(`session ${input.sessionId} not found`);
    await requireSessionOpenForWork(deps.pool, principal.tenantId, input.sessionId, new Date());
  }
  const workflowId = taskWorkflowIdOf(input.taskId);
  try {
    await launchTaskWorkflow(deps.temporal, deps.taskQueue, input, requestFingerprint);
    return { workflowId, alreadyStarted: false };
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    const earlier = await describeTaskWorkflow(deps.temporal, workflowId);
    if (earlier?.tenantId !== principal.tenantId) {
      throw conflict(`task id ${input.taskId} is already taken; choose another`);
    }
    if (earlier.requestFingerprint !== undefined && earlier.requestFingerprint !== requestFingerprint) {
      throw conflict(`this task id was already submitted with a different request (task ${input.taskId}); resubmit the same request, or use another task id`);
    }
    return { workflowId, alreadyStarted: true };
  }
}
