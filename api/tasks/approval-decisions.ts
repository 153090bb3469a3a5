import type { Client } from '@temporalio/client';
import type { Pool } from 'pg';
import type { Principal } from '../../core/auth/api-keys';
import { checkPlan, parsePlanText } from '../../core/orchestration/plan';
import { findApproval } from '../../core/tasks/approvals';
import { isOutcomeReview, outcomeReviewProblem } from '../../core/tasks/run/outcome-review';
import type { ToolRegistry } from '../../core/tools/registry';
import { approvalDecisionSignal } from '../../workflows/messages';
import { requireRole } from './auth';
import { invalid, notFound, preconditionFailed } from './task-errors';
import { taskIdsReferencedBy } from './task-ids';

// A person's decision on a pending approval, for every door: checked here, then sent to the
// task's workflow by signal.

export interface ApprovalDecisionDeps {
  temporal: Client;
  pool: Pool;
  tools: ToolRegistry;
}

/** What the caller decided; an empty string is a field not given. */
export interface ApprovalDecision {
  approvalId: string;
  /** The workflow (or a task id) the caller says the approval belongs to, checked when given. */
  workflowId?: string;
  approved: boolean;
  feedback: string;
  /** An approval's edit: the plan, the tool arguments as JSON, or an unknown outcome's review. */
  modifiedAction?: string;
  /** The name the caller decides as, recorded beside the caller's own. */
  approvedBy?: string;
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

export async function decideApproval(deps: ApprovalDecisionDeps, decision: ApprovalDecision, principal: Principal): Promise<void> {
  if (!decision.approvalId) throw invalid('approval_id is required');
  const approval = await findApproval(deps.pool, decision.approvalId);
  // Another tenant's approval is as unknown as a missing one.
  if (!approval || approval.tenantId !== principal.tenantId) throw notFound(`approval ${decision.approvalId} not found`);
  requireRole(principal, 'approver', 'deciding an approval');
  const named = decision.workflowId ? taskIdsReferencedBy(decision.workflowId, principal.tenantId) : [];
  if (decision.workflowId && decision.workflowId !== approval.workflowId && !named.includes(approval.taskId)) {
    throw invalid(`approval ${decision.approvalId} does not belong to workflow ${decision.workflowId}`);
  }
  if (approval.status !== 'pending') throw preconditionFailed(`approval ${decision.approvalId} is already ${approval.status}`);
  if (approval.expiresAt.getTime() < Date.now()) throw preconditionFailed(`approval ${decision.approvalId} has expired`);
  if (decision.approved && decision.modifiedAction)
    checkModification(approval.kind, approval.proposedAction, decision.modifiedAction, deps.tools, principal.tenantId);
  await deps.temporal.workflow.getHandle(approval.workflowId).signal(approvalDecisionSignal, {
    approvalId: approval.approvalId,
    approved: decision.approved,
    feedback: decision.feedback,
    ...(decision.modifiedAction ? { modifiedAction: decision.modifiedAction } : {}),
    // Recorded as who decided: the authenticated user, with the name the request gives, if any.
    decidedBy: decision.approvedBy && decision.approvedBy !== principal.userId ? `${principal.userId} (as ${decision.approvedBy})` : principal.userId,
    channel: 'api',
  });
}
