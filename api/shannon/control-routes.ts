import { controlStateAnswer, steerAnswer, steerBody, taskMessageAnswer, taskMessageBody } from './shannon-schemas';
import { randomUUID } from 'node:crypto';
import { idempotencyKeyOf } from '../http/credentials';
import type { ControlState } from '../../workflows/messages';
import { messageTask, steerTask, taskControlState } from '../tasks/task-control';
import { objectOf } from './route-adapter';
import { badRequest, type ShannonCall, type ShannonDeps, type ShannonRoute } from './shannon-route';

// Pause, resume and control state of a running task, and messages to it, as Shannon's gateway
// serves them (api/tasks/task-control.ts does the steering for every door).

/** A pause's or resume's body, {"reason": "..."} or none: its reason. */
export function reasonOf(body: unknown): string {
  const request = objectOf(body ?? {});
  if (!request) throw badRequest('the request body must be a JSON object');
  const { reason = '', ...unknown } = request;
  if (Object.keys(unknown).length > 0) throw badRequest(`unknown field ${Object.keys(unknown)[0]}`);
  if (typeof reason !== 'string') throw badRequest('reason must be a string');
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

function steer(change: 'pause' | 'resume') {
  return async ({ principal, params, body }: ShannonCall, deps: ShannonDeps) => {
    const state = await steerTask(deps, principal, params.task_id!, change, reasonOf(body));
    return {
      status: 202,
      body: { success: true, message: `task ${change === 'pause' ? 'paused' : 'resumed'}`, task_id: params.task_id!, ...controlStateJson(state) },
    };
  };
}

/** An Idempotency-Key makes a resend a no-op. */
async function sendMessage({ principal, params, body, headers }: ShannonCall, deps: ShannonDeps) {
  const request = objectOf(body ?? {});
  if (!request) throw badRequest('the request body must be a JSON object');
  const { message, ...unknown } = request;
  if (Object.keys(unknown).length > 0) throw badRequest(`unknown field ${Object.keys(unknown)[0]}`);
  if (typeof message !== 'string') throw badRequest('message is required');
  const key = idempotencyKeyOf(headers);
  const id = key === undefined ? randomUUID() : String(key);
  const sent = await messageTask(deps, principal, params.workflow_id!, { id, text: message });
  return { body: { success: true, status: sent.duplicate ? 'duplicate' : 'delivered', message_id: id } };
}

export const controlRoutes: ShannonRoute[] = [
  {
    method: 'POST',
    path: '/api/v1/swarm/:workflow_id/message',
    body: taskMessageBody,
    answer: taskMessageAnswer,
    summary: 'A message to a running task, which its agents get with their next model step; {"message": "..."} (Idempotency-Key: sent once)',
    tag: 'control',
    handle: sendMessage,
  },
  {
    method: 'POST',
    path: '/api/v1/tasks/:task_id/pause',
    body: steerBody,
    answer: steerAnswer,
    answerStatus: 202,
    summary: 'Pause a running task at its next step boundary (the call under way finishes); {"reason": "..."}; 202',
    tag: 'control',
    handle: steer('pause'),
  },
  {
    method: 'POST',
    path: '/api/v1/tasks/:task_id/resume',
    body: steerBody,
    answer: steerAnswer,
    answerStatus: 202,
    summary: 'Resume a paused task where it stopped; {"reason": "..."}; 202',
    tag: 'control',
    handle: steer('resume'),
  },
  {
    method: 'GET',
    path: '/api/v1/tasks/:task_id/control-state',
    answer: controlStateAnswer,
    summary: 'Whether the task is paused (since when, by whom, why) or cancelled',
    tag: 'control',
    handle: async ({ principal, params }, deps) => ({ body: controlStateJson(await taskControlState(deps, principal, params.task_id!)) }),
  },
];
