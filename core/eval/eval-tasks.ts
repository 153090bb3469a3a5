import type { Pool } from 'pg';
import type { Queryable } from '../db/transaction';
import { withTransaction } from '../db/transaction';
import { findTask, type TaskRecord } from '../tasks/task-index';

// The store's side of evals: which recorded tasks an eval may run again, an eval's own tasks, and
// deleting them. An eval's tasks are indexed under it (tasks.eval_id) and left out of production
// listings; recorded tasks are production tasks that completed.

const recordedTaskIds = async (db: Queryable, sql: string, params: unknown[]) =>
  (await db.query<{ task_id: string }>(sql, params)).rows.map((row) => row.task_id);

async function tasksOf(db: Queryable, taskIds: string[]): Promise<TaskRecord[]> {
  return (await Promise.all(taskIds.map((taskId) => findTask(db, taskId)))).filter((task): task is TaskRecord => task !== undefined);
}

/** The newest completed production task that asked exactly `query` (of `tenantId` when given). */
export async function newestTaskAsking(db: Queryable, query: string, tenantId?: string): Promise<TaskRecord | undefined> {
  const [taskId] = await recordedTaskIds(
    db,
    `SELECT task_id FROM tasks WHERE query = $1 AND status = 'COMPLETED' AND eval_id = '' AND ($2::text IS NULL OR tenant_id = $2)
     ORDER BY created_at DESC LIMIT 1`,
    [query, tenantId ?? null],
  );
  return taskId ? findTask(db, taskId) : undefined;
}

/** The last `count` completed runs of a template (any version: name, or exactly name@version). */
export async function lastRunsOfTemplate(db: Queryable, template: string, count: number, tenantId?: string): Promise<TaskRecord[]> {
  const exact = template.includes('@');
  const taskIds = await recordedTaskIds(
    db,
    `SELECT task_id FROM tasks
     WHERE (CASE WHEN $2 THEN template = $1 ELSE split_part(template, '@', 1) = $1 END) AND status = 'COMPLETED' AND eval_id = ''
       AND ($4::text IS NULL OR tenant_id = $4)
     ORDER BY created_at DESC LIMIT $3`,
    [template, exact, count, tenantId ?? null],
  );
  return tasksOf(db, taskIds);
}

/** The tasks of an eval, oldest first. */
export async function tasksOfEval(db: Queryable, evalId: string): Promise<TaskRecord[]> {
  return tasksOf(db, await recordedTaskIds(db, `SELECT task_id FROM tasks WHERE eval_id = $1 ORDER BY created_at, task_id`, [evalId]));
}

/** The runs a task wrote: its own (agent ''; a single agent's is the task's), and its plan's agents'. */
export async function runsOfTask(db: Queryable, taskId: string): Promise<Array<{ agentId: string; runId: string }>> {
  const { rows } = await db.query<{ agent_id: string; run_id: string }>(
    `SELECT '' AS agent_id, run_id FROM tasks WHERE task_id = $1
     UNION ALL SELECT a.agent_id, a.run_id FROM task_agents a JOIN tasks t USING (task_id) WHERE a.task_id = $1 AND a.run_id <> t.run_id
     ORDER BY agent_id`,
    [taskId],
  );
  return rows.map((row) => ({ agentId: row.agent_id, runId: row.run_id }));
}

/**
 * Deletes one of an eval's tasks from the store in one transaction: its runs (and with them their
 * records), events, usage, agents, approvals and reservations, and its index row. What the tenant
 * spent (llm_usage) stays: the eval's model calls were paid for. A production task is never deleted.
 */
export async function deleteEvalTask(pool: Pool, taskId: string): Promise<void> {
  await withTransaction(pool, async (tx) => {
    const { rows } = await tx.query<{ workflow_id: string; eval_id: string }>('SELECT workflow_id, eval_id FROM tasks WHERE task_id = $1 FOR UPDATE', [taskId]);
    const task = rows[0];
    if (!task) return;
    if (task.eval_id === '') throw new Error(`task ${taskId} is not an eval's: only an eval's tasks are deleted`);
    const runs = (await runsOfTask(tx, taskId)).map((run) => run.runId);
    await tx.query('DELETE FROM runtime_runs WHERE run_id = ANY($1)', [runs]);
    await tx.query('DELETE FROM task_events WHERE workflow_id = $1', [task.workflow_id]);
    await tx.query('DELETE FROM task_event_counters WHERE workflow_id = $1', [task.workflow_id]);
    for (const table of ['task_usage', 'task_agents', 'approvals', 'budget_reservations']) await tx.query(`DELETE FROM ${table} WHERE task_id = $1`, [taskId]);
    await tx.query('DELETE FROM tasks WHERE task_id = $1', [taskId]);
  });
}
