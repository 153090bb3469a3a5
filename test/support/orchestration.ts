import type { Pool } from 'pg';
import { callUnary } from '../../protos/clients';
import type { ApproveTaskRequest } from '../../protos/generated/shannon/orchestrator/ApproveTaskRequest';
import type { ApproveTaskResponse__Output } from '../../protos/generated/shannon/orchestrator/ApproveTaskResponse';
import type { CancelTaskResponse__Output } from '../../protos/generated/shannon/orchestrator/CancelTaskResponse';
import type { GetPendingApprovalsResponse__Output } from '../../protos/generated/shannon/orchestrator/GetPendingApprovalsResponse';
import type { GetTaskStatusResponse__Output } from '../../protos/generated/shannon/orchestrator/GetTaskStatusResponse';
import type { OrchestratorServiceClient } from '../../protos/generated/shannon/orchestrator/OrchestratorService';
import { listTaskEvents } from '../../core/events/event-log';

export const approveTask = (client: OrchestratorServiceClient, request: ApproveTaskRequest) =>
  callUnary<ApproveTaskRequest, ApproveTaskResponse__Output>(client.ApproveTask, client, request);

export const cancelTask = (client: OrchestratorServiceClient, taskId: string, reason: string) =>
  callUnary<{ task_id: string; reason: string }, CancelTaskResponse__Output>(client.CancelTask, client, { task_id: taskId, reason });

export const pendingApprovals = (client: OrchestratorServiceClient, filter: { user_id?: string; session_id?: string } = {}) =>
  callUnary<typeof filter, GetPendingApprovalsResponse__Output>(client.GetPendingApprovals, client, filter);

export const taskDetails = (client: OrchestratorServiceClient, taskId: string) =>
  callUnary<{ task_id: string; include_details: boolean }, GetTaskStatusResponse__Output>(client.GetTaskStatus, client, {
    task_id: taskId,
    include_details: true,
  });

export async function until<T>(probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The task's event types in order, after checking the sequence is 1..n with no gap. */
export async function eventTypes(pool: Pool, workflowId: string): Promise<string[]> {
  const events = await listTaskEvents(pool, workflowId);
  expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  return events.map((e) => (e.agentId ? `${e.type}:${e.agentId}` : e.type));
}

/** The pending approval of a task (by task id), once it is there. */
export function pendingApprovalOf(client: OrchestratorServiceClient, taskId: string) {
  return until(async () => {
    const { approvals } = await pendingApprovals(client);
    return approvals.find((a) => a.approval_id.startsWith(taskId));
  });
}
