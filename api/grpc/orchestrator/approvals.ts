import type { Pool } from 'pg';
import { listPendingApprovals } from '../../../core/tasks/approvals';
import type { ApproveTaskRequest__Output } from '../../../protos/generated/shannon/orchestrator/ApproveTaskRequest';
import type { ApproveTaskResponse } from '../../../protos/generated/shannon/orchestrator/ApproveTaskResponse';
import type { GetPendingApprovalsRequest__Output } from '../../../protos/generated/shannon/orchestrator/GetPendingApprovalsRequest';
import type { GetPendingApprovalsResponse } from '../../../protos/generated/shannon/orchestrator/GetPendingApprovalsResponse';
import type { Principal } from '../../../core/auth/api-keys';
import { decideApproval, type ApprovalDecisionDeps } from '../../tasks/approval-decisions';
import { jsonToStruct, toTimestamp } from '../struct';

export async function approveTask(deps: ApprovalDecisionDeps, request: ApproveTaskRequest__Output, principal: Principal): Promise<ApproveTaskResponse> {
  await decideApproval(
    deps,
    {
      approvalId: request.approval_id,
      workflowId: request.workflow_id,
      approved: request.approved,
      feedback: request.feedback,
      modifiedAction: request.modified_action,
      approvedBy: request.approved_by,
    },
    principal,
  );
  return { success: true, message: request.approved ? 'approval sent; the task continues' : 'rejection sent; the task will be cancelled' };
}

export async function pendingApprovals(
  deps: { pool: Pool },
  request: GetPendingApprovalsRequest__Output,
  tenantId: string,
): Promise<GetPendingApprovalsResponse> {
  const approvals = await listPendingApprovals(deps.pool, { tenantId, userId: request.user_id, sessionId: request.session_id });
  return {
    approvals: approvals.map((a) => ({
      approval_id: a.approvalId,
      workflow_id: a.workflowId,
      query: a.query,
      proposed_action: JSON.stringify(a.proposedAction),
      reason: a.reason,
      requested_at: toTimestamp(a.requestedAt),
      metadata: jsonToStruct({ task_id: a.taskId, kind: a.kind, expires_at: a.expiresAt.toISOString(), user_id: a.userId, session_id: a.sessionId }),
    })),
  };
}
