import type { Client } from '@temporalio/client';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import type { Pool } from 'pg';
import type { Principal } from '../../core/auth/api-keys';
import { controlStateQuery, pauseTaskUpdate, resumeTaskUpdate, sendMessageUpdate, type ControlState } from '../../workflows/messages';
import { hasRole } from './auth';
import { invalid, permissionDenied, preconditionFailed } from './task-errors';
import { ownTaskOf, type OwnTask } from './task-ownership';

// Steering a running task, for every door (gRPC PauseTask, ResumeTask, GetControlState and
// SendSwarmMessage; Shannon's REST routes; the weft CLI through gRPC): the task workflow's Updates
// and query, which Temporal's CLI and Web UI send too. The task's own user, or an approver of its
// tenant, steers it; a finished task is not steered.

export interface TaskControlDeps {
  pool: Pool;
  temporal: Client;
}

const maxReasonChars = 1_000;
const maxMessageChars = 32 * 1024;

const isRunning = (task: OwnTask) => !task.record || task.record.status === 'RUNNING' || task.record.status === 'QUEUED';

/** The task, if the caller may steer it: its own user's, or an approver's of its tenant, while it runs. */
export async function steerableTask(deps: TaskControlDeps, reference: string, principal: Principal): Promise<OwnTask> {
  const task = await ownTaskOf(deps, reference, principal);
  if (task.record && task.record.userId !== principal.userId && !hasRole(principal, 'approver')) {
    throw permissionDenied("steering another user's task needs the approver role");
  }
  if (!isRunning(task)) throw preconditionFailed(`task ${reference} has already finished (${task.record!.status})`);
  return task;
}

/** An Update the workflow refused (it is ending or being cancelled) fails with the workflow's own reason. */
export async function refusedAsPrecondition<T>(update: () => Promise<T>): Promise<T> {
  try {
    return await update();
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError) throw preconditionFailed(err.cause?.message ?? err.message);
    throw err;
  }
}

export const steererOf = (principal: Principal) => `${principal.tenantId}/${principal.userId}`;

/** Pauses or resumes the task; its control state afterwards (unchanged when it already was so). */
export async function steerTask(
  deps: TaskControlDeps,
  principal: Principal,
  reference: string,
  change: 'pause' | 'resume',
  reason: string,
): Promise<ControlState> {
  if (reason.length > maxReasonChars) throw invalid(`reason is longer than ${maxReasonChars} characters`);
  const task = await steerableTask(deps, reference, principal);
  const update = change === 'pause' ? pauseTaskUpdate : resumeTaskUpdate;
  return refusedAsPrecondition(() =>
    deps.temporal.workflow.getHandle(task.workflowId).executeUpdate(update, { args: [{ reason, requestedBy: steererOf(principal) }] }),
  );
}

/** Whether the task is paused (since when, by whom, why) or cancelled; a finished task from its record. */
export async function taskControlState(deps: TaskControlDeps, principal: Principal, reference: string): Promise<ControlState> {
  const task = await ownTaskOf(deps, reference, principal);
  if (!isRunning(task)) {
    const cancelled = task.record!.status === 'CANCELLED';
    return { isPaused: false, isCancelled: cancelled, ...(cancelled ? { cancelReason: task.record!.errorMessage } : {}) };
  }
  return deps.temporal.workflow.getHandle(task.workflowId).query(controlStateQuery);
}

/** A message its agents get with their next model step; the same id again is a duplicate, delivered once. */
export async function messageTask(
  deps: TaskControlDeps,
  principal: Principal,
  reference: string,
  message: { id: string; text: string },
): Promise<{ duplicate: boolean }> {
  if (message.text.trim() === '') throw invalid('message is required');
  if (message.text.length > maxMessageChars) throw invalid(`message is longer than ${maxMessageChars} characters`);
  if (!/^[A-Za-z0-9._:-]{1,128}$/.test(message.id)) throw invalid('the message id (Idempotency-Key) must be 1-128 letters, digits, ".", "_", ":" or "-"');
  const task = await steerableTask(deps, reference, principal);
  return refusedAsPrecondition(() =>
    deps.temporal.workflow
      .getHandle(task.workflowId)
      .executeUpdate(sendMessageUpdate, { args: [{ id: message.id, text: message.text, from: steererOf(principal) }] }),
  );
}
