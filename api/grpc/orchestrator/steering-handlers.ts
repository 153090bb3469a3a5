import { randomUUID } from 'node:crypto';
import type { OrchestratorServiceHandlers } from '../../../protos/generated/shannon/orchestrator/OrchestratorService';
import type { ControlState } from '../../../workflows/messages';
import type { Authenticator } from '../../tasks/auth';
import { authorized, authorizedCall } from '../unary';
import { messageTask, steerTask, taskControlState, type TaskControlDeps } from '../../tasks/task-control';

// OrchestratorService's steering RPCs (PauseTask, ResumeTask, GetControlState, SendSwarmMessage),
// in the shapes of Shannon's published proto, over the steering every door shares.

const controlStateMessage = (state: ControlState) => ({
  is_paused: state.isPaused,
  is_cancelled: state.isCancelled,
  paused_at: state.pausedAt ?? '',
  pause_reason: state.pauseReason ?? '',
  paused_by: state.pausedBy ?? '',
  cancel_reason: state.cancelReason ?? '',
  cancelled_by: state.cancelledBy ?? '',
});

type SteeringHandlers = Pick<OrchestratorServiceHandlers, 'PauseTask' | 'ResumeTask' | 'GetControlState' | 'SendSwarmMessage'>;

export function steeringHandlers(deps: TaskControlDeps & { auth: Authenticator }): SteeringHandlers {
  const steer = (change: 'pause' | 'resume') =>
    authorized(deps.auth, async (request: { task_id: string; reason: string }, principal) => {
      const state = await steerTask(deps, principal, request.task_id, change, request.reason);
      return { success: true, message: `task ${state.isPaused ? 'paused' : 'running'}${state.pauseReason ? `: ${state.pauseReason}` : ''}` };
    });
  return {
    PauseTask: steer('pause'),
    ResumeTask: steer('resume'),
    GetControlState: authorized(deps.auth, async (request, principal) => controlStateMessage(await taskControlState(deps, principal, request.task_id))),
    SendSwarmMessage: authorizedCall(deps.auth, async (request, principal, call) => {
      const key = call.metadata.get('idempotency-key')[0];
      const sent = await messageTask(deps, principal, request.workflow_id, { id: key === undefined ? randomUUID() : String(key), text: request.message });
      return { success: true, status: sent.duplicate ? 'duplicate' : 'delivered' };
    }),
  };
}
