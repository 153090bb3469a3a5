import type { Queryable } from '../db/transaction';

/**
 * Nothing of a finished task stays open, in one statement of the transaction that records its end:
 * its pending approvals expire (nobody can decide them any more), its agents still marked RUNNING
 * end cancelled (the engine closes their child workflows with the parent; an agent's own later
 * outcome still replaces this), and its budget reservations are settled (its usage counts now).
 */
export async function closeTaskLeftovers(tx: Queryable, taskId: string, at: Date): Promise<void> {
  await tx.query(
    `WITH approvals AS (
       UPDATE approvals SET status = 'expired', decided_at = $2 WHERE task_id = $1 AND status = 'pending'
     ), agents AS (
       UPDATE task_agents SET status = 'CANCELLED', error = 'the task ended first', completed_at = $2 WHERE task_id = $1 AND status = 'RUNNING'
     ), reservations AS (
       UPDATE budget_reservations SET settled_at = $2 WHERE task_id = $1 AND settled_at IS NULL
     )
     SELECT 1`,
    [taskId, at],
  );
}
