import type { Client } from '@temporalio/client';
import type { Pool } from 'pg';
import { checkPlan, parsePlanText } from '../../../core/orchestration/plan';
import { findApproval, listPendingApprovals } from '../../../core/tasks/approvals';
import { isOutcomeReview, outcomeReviewProblem } from '../../../core/tasks/run/outcome-review';
import type { ToolRegistry } from '../../../core/tools/registry';
import type { ApproveTaskRequest__Output } from '../../../protos/generated/shannon/orchestrator/ApproveTaskRequest';
import type { ApproveTaskResponse } from '../../../protos/generated/shannon/orchestrator/ApproveTaskResponse';
import type { GetPendingApprovalsRequest__Output } from '../../../protos/generated/shannon/orchestrator/GetPendingApprovalsRequest';
import type { GetPendingApprovalsResponse } from '../../../protos/generated/shannon/orchestrator/GetPendingApprovalsResponse';
import type { Principal } from '../../../core/auth/api-keys';
import { taskIdsReferencedBy } from '../../tasks/task-ids';
import { approvalDecisionSignal } from '../../../workflows/messages';
import { requireRole } from '../../tasks/auth';
import { invalid, notFound, preconditionFailed } from '../../tasks/task-errors';
import { jsonToStruct, toTimestamp } from '../struct';

export interface ApprovalDeps {
  temporal: Client;
  pool: Pool;
  tools: ToolRegistry;
}

/** The edited plan or tool arguments must pass the same validation as the original; an unknown outcome's review takes {"run_again": true} only. */
function checkModification(kind: 'plan' | 'tool', proposed: unknown, modified: string, tools: ToolRegistry, tenantId: string): void {
  if (kind === 'plan') {
    const isPlan = typeof proposed === 'object' && proposed !== null && 'plan' in proposed;
    if (!isPlan) return; // without a plan, the modification is a new query text
    const check = checkPlan(
      parsePlanText(modified),
      tools.list(tenantId).map((t) => t.name),
    );
    if (!check.ok) throw invalid(`modified_action is not a valid plan: ${check.errors.join('; ')}`);
    return;
  }
  if (isOutcomeReview(proposed)) {
    const problem = outcomeReviewProblem(modified);
    if (problem) throw invalid(`modified_action: ${problem}`);
    return;
  }
  let args: unknown;
  try {
    args = JSON.parse(modified);
  } catch {
    throw invalid('modified_action must be the tool arguments as JSON');
  }
  const problem = tools.checkArguments((proposed as { tool: string }).tool, args);
  if (problem) throw invalid(`modified_action: ${problem}`);
}

export async function approveTask(deps: ApprovalDeps, request: ApproveTaskRequest__Output, principal: Principal): Promise<ApproveTaskResponse> {
  if (!request.approval_id) throw invalid('approval_id is required');
  const approval = await findApproval(deps.pool, request.approval_id);
  // Another tenant's approval is as unknown as a missing one.
  if (!approval || approval.tenantId !== principal.tenantId) throw notFound(`approval ${request.approval_id} not found`);
  requireRole(principal, 'approver', 'deciding an approval');
  const named = request.workflow_id ? taskIdsReferencedBy(request.workflow_id, principal.tenantId) : [];
  if (request.workflow_id && request.workflow_id !== approval.workflowId && !named.includes(approval.taskId)) {
    throw invalid(`approval ${request.approval_id} does not belong to workflow ${request.workflow_id}`);
  }
  if (approval.status !== 'pending') throw preconditionFailed(`approval ${request.approval_id} is already ${approval.status}`);
  if (approval.expiresAt.getTime() < Date.now()) throw preconditionFailed(`approval ${request.approval_id} has expired`);
  if (request.approved && request.modified_action)
    checkModification(approval.kind, approval.proposedAction, request.modified_action, deps.tools, principal.tenantId);
  await deps.temporal.workflow.getHandle(approval.workflowId).signal(approvalDecisionSignal, {
    approvalId: approval.approvalId,
    approved: request.approved,
    feedback: request.feedback,
    ...(request.modified_action ? { modifiedAction: request.modified_action } : {}),
    // Recorded as who decided: the authenticated user, with the name the request gives, if any.
    decidedBy: request.approved_by && request.approved_by !== principal.userId ? `${principal.userId} (as ${request.approved_by})` : principal.userId,
    channel: 'api',
  });
  return { success: true, message: request.approved ? 'approval sent; the task continues' : 'rejection sent; the task will be cancelled' };
}

export async function pendingApprovals(
  deps: ApprovalDeps,
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
