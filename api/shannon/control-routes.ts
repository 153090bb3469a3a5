import { WorkflowUpdateFailedError } from '@temporalio/client';
import type { Principal } from '../../core/auth/api-keys';
import { randomUUID } from 'node:crypto';
import { controlStateQuery, pauseTaskUpdate, resumeTaskUpdate, sendMessageUpdate, type ControlState } from '../../workflows/messages';
import { hasRole } from '../grpc/auth';
import { failedPrecondition, permissionDenied } from '../grpc/grpc-errors';
import { ownTaskOf, type OwnTask } from '../orchestrator/task-ownership';
import { objectOf } from './route-adapter';
import { badRequest, type ShannonCall, type ShannonDeps, type ShannonRoute } from './shannon-route';

// Pause, resume and control state of a running task, as Shannon's gateway serves them. Pause and
// resume are the task workflow's Updates (pauseTask, resumeTask): the answer says whether the change
// applied, and Temporal's CLI and Web UI send the same ones.

const isRunning = (task: OwnTask) => !task.record || task.record.status === 'RUNNING' || task.record.status === 'QUEUED';

/** The task's own user, or an approver of its tenant, steers it. */
function requireSteerer(task: OwnTask, principal: Principal): void {
  if (task.record && task.record.userId !== principal.userId && !hasRole(principal, 'approver')) {
    throw permissionDenied("steering another user's task needs the approver role");
  }
}

function reasonOf(body: unknown): string {
  const request = objectOf(body ?? {});
  if (!request) throw badRequest('the request body must be a JSON object');
  const { reason = '', ...unknown } = request;
  if (Object.keys(unknown).length > 0) throw badRequest(`unknown field ${Object.keys(unknown)[0]}`);
  if (typeof reason !== 'string') throw badRequest('reason must be a string');
  if (reason.length > 1000) throw badRequest('reason is longer than 1000 characters');
  return reason;
}

function controlStateJson(state: ControlState) {
  return {
    is_paused: state.isPaused,
    is_cancelled: state.isCancelled,
    paused_at: state.pausedAt ?? null,
    pause_reason: state.pauseReason ?? '',
    paused_by: state.pausedBy ?? '',
    cancel_reason: state.cancelReason ?? '',
    cancelled_by: state.cancelledBy ?? '',
  };
}

function steer(update: typeof pauseTaskUpdate, verb: 'paused' | 'resumed') {
  return async ({ principal, params, body }: ShannonCall, deps: ShannonDeps) => {
    const reason = reasonOf(body);
    const task = await ownTaskOf(deps, params.task_id!, principal);
    requireSteerer(task, principal);
    if (!isRunning(task)) throw failedPrecondition(`task ${params.task_id} has already finished (${task.record!.status})`);
    try {
      const state = await deps.temporal.workflow
        .getHandle(task.workflowId)
        .executeUpdate(update, { args: [{ reason, requestedBy: `${principal.tenantId}/${principal.userId}` }] });
      return { status: 202, body: { success: true, message: `task ${verb}`, task_id: task.taskId, ...controlStateJson(state) } };
    } catch (err) {
      // The workflow refused the change (it is ending or being cancelled): the reason is its own.
      if (err instanceof WorkflowUpdateFailedError) throw failedPrecondition(err.cause?.message ?? err.message);
      throw err;
    }
  };
}

const maxMessageChars = 32 * 1024;

/** A message to a running task: its agents get it with their next model step. An Idempotency-Key makes a resend a no-op. */
async function sendMessage({ principal, params, body, metadata }: ShannonCall, deps: ShannonDeps) {
  const request = objectOf(body ?? {});
  if (!request) throw badRequest('the request body must be a JSON object');
  const { message, ...unknown } = request;
  if (Object.keys(unknown).length > 0) throw badRequest(`unknown field ${Object.keys(unknown)[0]}`);
  if (typeof message !== 'string' || message.trim() === '') throw badRequest('message is required');
  if (message.length > maxMessageChars) throw badRequest(`message is longer than ${maxMessageChars} characters`);
  const key = metadata.get('idempotency-key')[0];
  const id = key === undefined ? randomUUID() : String(key);
  if (!/^[A-Za-z0-9._:-]{1,128}$/.test(id)) throw badRequest('Idempotency-Key must be 1-128 letters, digits, ".", "_", ":" or "-"');
  const task = await ownTaskOf(deps, params.workflow_id!, principal);
  requireSteerer(task, principal);
  if (!isRunning(task)) throw failedPrecondition(`task ${params.workflow_id} has already finished (${task.record!.status})`);
  try {
    const sent = await deps.temporal.workflow
      .getHandle(task.workflowId)
      .executeUpdate(sendMessageUpdate, { args: [{ id, text: message, from: `${principal.tenantId}/${principal.userId}` }] });
    return { body: { success: true, status: sent.duplicate ? 'duplicate' : 'delivered', message_id: id } };
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError) throw failedPrecondition(err.cause?.message ?? err.message);
    throw err;
  }
}

export const controlRoutes: ShannonRoute[] = [
  {
    method: 'POST',
    path: '/api/v1/swarm/:workflow_id/message',
    summary: 'A message to a running task, which its agents get with their next model step; {"message": "..."} (Idempotency-Key: sent once)',
    tag: 'control',
    handle: sendMessage,
  },
  {
    method: 'POST',
    path: '/api/v1/tasks/:task_id/pause',
    summary: 'Pause a running task at its next step boundary (the call under way finishes); {"reason": "..."}; 202',
    tag: 'control',
    handle: steer(pauseTaskUpdate, 'paused'),
  },
  {
    method: 'POST',
    path: '/api/v1/tasks/:task_id/resume',
    summary: 'Resume a paused task where it stopped; {"reason": "..."}; 202',
    tag: 'control',
    handle: steer(resumeTaskUpdate, 'resumed'),
  },
  {
    method: 'GET',
    path: '/api/v1/tasks/:task_id/control-state',
    summary: 'Whether the task is paused (since when, by whom, why) or cancelled',
    tag: 'control',
    async handle({ principal, params }, deps) {
      const task = await ownTaskOf(deps, params.task_id!, principal);
      if (!isRunning(task)) {
        const cancelled = task.record!.status === 'CANCELLED';
        return { body: controlStateJson({ isPaused: false, isCancelled: cancelled, ...(cancelled ? { cancelReason: task.record!.errorMessage } : {}) }) };
      }
      return { body: controlStateJson(await deps.temporal.workflow.getHandle(task.workflowId).query(controlStateQuery)) };
    },
  },
];
