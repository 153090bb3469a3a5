import type { Queryable } from '../db/transaction';
import type { TaskRef } from './run/task-ref';

// Approvals a workflow waits on: the pending list GetPendingApprovals serves and the audit of every
// decision (who, when, what, feedback).

export type ApprovalStatus = 'pending' | 'approved' | 'rejected' | 'expired';

export interface Approval extends Omit<TaskRef, 'roles'> {
  approvalId: string;
  /** The workflow that waits for the decision: the task's, or one of its agents'. */
  workflowId: string;
  query: string;
  kind: 'plan' | 'tool';
  proposedAction: unknown;
  reason: string;
  status: ApprovalStatus;
  requestedAt: Date;
  expiresAt: Date;
  decidedAt?: Date;
  decidedBy: string;
  feedback: string;
  modifiedAction: string;
}

interface ApprovalRow {
  approval_id: string;
  task_id: string;
  workflow_id: string;
  tenant_id: string;
  user_id: string;
  session_id: string;
  query: string;
  kind: 'plan' | 'tool';
  proposed_action: unknown;
  reason: string;
  status: ApprovalStatus;
  requested_at: Date;
  expires_at: Date;
  decided_at: Date | null;
  decided_by: string;
  feedback: string;
  modified_action: string;
}

const toApproval = (row: ApprovalRow): Approval => ({
  approvalId: row.approval_id,
  taskId: row.task_id,
  workflowId: row.workflow_id,
  tenantId: row.tenant_id,
  userId: row.user_id,
  sessionId: row.session_id,
  query: row.query,
  kind: row.kind,
  proposedAction: row.proposed_action,
  reason: row.reason,
  status: row.status,
  requestedAt: row.requested_at,
  expiresAt: row.expires_at,
  ...(row.decided_at ? { decidedAt: row.decided_at } : {}),
  decidedBy: row.decided_by,
  feedback: row.feedback,
  modifiedAction: row.modified_action,
});

export type NewApproval = Omit<Approval, 'status' | 'decidedAt' | 'decidedBy' | 'feedback' | 'modifiedAction'>;

/**
 * Records a pending approval; a retry with the same id changes nothing. Asked again after its
 * decision (only a Temporal reset's new run does: each run asks once), it is pending again, and the
 * earlier decision stays in the earlier run's records.
 */
export async function insertPendingApproval(tx: Queryable, approval: NewApproval): Promise<boolean> {
  const inserted = await tx.query(
    `INSERT INTO approvals (approval_id, task_id, workflow_id, tenant_id, user_id, session_id, query, kind, proposed_action, reason,
                            status, requested_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'pending', $11, $12)
     ON CONFLICT (approval_id) DO UPDATE SET proposed_action = EXCLUDED.proposed_action, reason = EXCLUDED.reason, status = 'pending',
       requested_at = EXCLUDED.requested_at, expires_at = EXCLUDED.expires_at, decided_at = NULL, decided_by = '', decided_via = '', feedback = '', modified_action = ''
       WHERE approvals.status <> 'pending'`,
    [
      approval.approvalId,
      approval.taskId,
      approval.workflowId,
      approval.tenantId,
      approval.userId,
      approval.sessionId,
      approval.query,
      approval.kind,
      JSON.stringify(approval.proposedAction),
      approval.reason,
      approval.requestedAt,
      approval.expiresAt,
    ],
  );
  return (inserted.rowCount ?? 0) > 0;
}

export interface ApprovalDecisionRecord {
  status: Exclude<ApprovalStatus, 'pending'>;
  decidedBy: string;
  /** api, signal or update; '' when not known (an expiry, or an older workflow). */
  decidedVia?: string;
  feedback: string;
  modifiedAction: string;
  at: Date;
}

/** Decides a pending approval; returns false when it was already decided (a retry or a race). */
export async function decideApproval(tx: Queryable, approvalId: string, decision: ApprovalDecisionRecord): Promise<boolean> {
  const updated = await tx.query(
    `UPDATE approvals SET status = $2, decided_by = $3, feedback = $4, modified_action = $5, decided_at = $6, decided_via = $7
     WHERE approval_id = $1 AND status = 'pending'`,
    [approvalId, decision.status, decision.decidedBy, decision.feedback, decision.modifiedAction, decision.at, decision.decidedVia ?? ''],
  );
  return (updated.rowCount ?? 0) > 0;
}

export async function findApproval(db: Queryable, approvalId: string): Promise<Approval | undefined> {
  const rows = await db.query<ApprovalRow>('SELECT * FROM approvals WHERE approval_id = $1', [approvalId]);
  return rows.rows[0] ? toApproval(rows.rows[0]) : undefined;
}

export async function listPendingApprovals(db: Queryable, filter: { tenantId: string; userId?: string; sessionId?: string }): Promise<Approval[]> {
  const rows = await db.query<ApprovalRow>(
    `SELECT * FROM approvals WHERE tenant_id = $1 AND status = 'pending'
       AND ($2::text IS NULL OR user_id = $2) AND ($3::text IS NULL OR session_id = $3)
     ORDER BY requested_at`,
    [filter.tenantId, filter.userId || null, filter.sessionId || null],
  );
  return rows.rows.map(toApproval);
}

/** The deployment's approvals waiting for a decision (the API's metrics). */
export async function countPendingApprovals(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ n: string }>(`SELECT count(*) AS n FROM approvals WHERE status = 'pending'`);
  return Number(rows[0]!.n);
}
