import type { Queryable } from '../db/transaction';
import type { TaskRef } from './run/task-ref';
import type { TokenCounts } from '../llm/chat-model';
import type { ExecutionMode, TaskStatus } from './task-status';
import { usageTotalsFromSteps, type Spend } from './task-usage';

// The task index: one row per task, written in the same transactions as the run's lifecycle
// records, read by GetTaskStatus and ListTasks.

export interface NewTask extends Omit<TaskRef, 'roles'> {
  workflowId: string;
  /** The task's own run: its workflow's first (taskRunOf), or the latest a Temporal reset gave it. */
  runId: string;
  query: string;
  mode: ExecutionMode;
  status: TaskStatus;
  createdAt: Date;
  /** The eval whose case the task is ('' or absent: a production task). */
  evalId?: string;
  /** The template (name@version) whose plan it runs. */
  template?: string;
}

export interface TaskRecord extends NewTask {
  result: string;
  errorMessage: string;
  usage: TokenCounts & { costUsd: number; model: string };
  /** A model step of the task was answered from the response cache. */
  cacheHit: boolean;
  completedAt?: Date;
  progress: number;
  plan?: unknown;
}

export interface TaskOutcome {
  status: TaskStatus;
  result: string;
  errorMessage: string;
  /** The model that gave the result; the usage totals come from the recorded steps. */
  model: string;
  completedAt: Date;
}

interface TaskRow {
  task_id: string;
  workflow_id: string;
  run_id: string;
  tenant_id: string;
  user_id: string;
  submitted_by: string;
  session_id: string;
  query: string;
  mode: ExecutionMode;
  status: TaskStatus;
  result: string;
  error_message: string;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cost_usd: number;
  model: string;
  cache_hit: boolean;
  usage_estimated: boolean;
  created_at: Date;
  completed_at: Date | null;
  progress: number;
  plan: unknown;
  eval_id: string;
  template: string;
}

export async function insertTask(tx: Queryable, task: NewTask): Promise<void> {
  await tx.query(
    `INSERT INTO tasks (task_id, workflow_id, run_id, tenant_id, user_id, submitted_by, session_id, query, mode, status, created_at, eval_id, template)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
     ON CONFLICT (task_id) DO NOTHING`,
    [
      task.taskId,
      task.workflowId,
      task.runId,
      task.tenantId,
      task.userId,
      task.submittedBy ?? '',
      task.sessionId,
      task.query,
      task.mode,
      task.status,
      task.createdAt,
      task.evalId ?? '',
      task.template ?? '',
    ],
  );
}

/** A finished task as its end is reported: what it spent, and whose task in which mode it was. */
export interface EndedTask {
  spent: Spend;
  mode: string;
  createdAt: Date;
  tenantId: string;
  userId: string;
}

export type EndedTaskRow = { total_tokens: number; cost_usd: number; mode: string; created_at: Date; tenant_id: string; user_id: string };
const endedTaskColumns = 'total_tokens, cost_usd, mode, created_at, tenant_id, user_id';
export const toEndedTask = (row: EndedTaskRow): EndedTask => ({
  spent: { tokens: row.total_tokens, costUsd: row.cost_usd },
  mode: row.mode,
  createdAt: row.created_at,
  tenantId: row.tenant_id,
  userId: row.user_id,
});

/**
 * The task's end, with its usage summed from every recorded step. The row is locked first, so the
 * sum (a statement of its own, with a snapshot taken after the lock) sees every step committed
 * before it, and a step committing later sums again (recordStepUsage).
 */
export async function recordTaskOutcome(tx: Queryable, taskId: string, outcome: TaskOutcome): Promise<EndedTask | undefined> {
  // Both sent at once (pipelined); Postgres still runs the update after the lock is granted.
  const [, { rows }] = await Promise.all([
    tx.query('SELECT 1 FROM tasks WHERE task_id = $1 FOR UPDATE', [taskId]),
    tx.query<EndedTaskRow>(
      `UPDATE tasks SET status = $2, result = $3, error_message = $4, model = $5, completed_at = $6, progress = 1,
                        ${usageTotalsFromSteps}
       WHERE task_id = $1 RETURNING ${endedTaskColumns}`,
      [taskId, outcome.status, outcome.result, outcome.errorMessage, outcome.model, outcome.completedAt],
    ),
  ]);
  return rows[0] && toEndedTask(rows[0]);
}

/** A task's end as recordTaskOutcome reported it, read again (an end recorded by an earlier attempt). */
export async function findEndedTask(db: Queryable, taskId: string): Promise<EndedTask | undefined> {
  const { rows } = await db.query<EndedTaskRow>(`SELECT ${endedTaskColumns} FROM tasks WHERE task_id = $1`, [taskId]);
  return rows[0] && toEndedTask(rows[0]);
}

export async function recordTaskMode(tx: Queryable, taskId: string, mode: ExecutionMode): Promise<void> {
  await tx.query('UPDATE tasks SET mode = $2 WHERE task_id = $1', [taskId, mode]);
}

/** The plan a COMPLEX task runs, and the mode it runs in. */
export async function recordTaskPlan(tx: Queryable, taskId: string, mode: ExecutionMode, plan: unknown): Promise<void> {
  await tx.query('UPDATE tasks SET mode = $2, plan = $3 WHERE task_id = $1', [taskId, mode, plan === undefined ? null : JSON.stringify(plan)]);
}

/**
 * Points the task at the run a Temporal reset gave it, running again until that run ends (the
 * earlier run's outcome stays in its records): false when the task had moved already.
 */
export async function moveTaskToRun(tx: Queryable, taskId: string, fromRunId: string, toRunId: string): Promise<boolean> {
  const moved = await tx.query(
    `UPDATE tasks SET run_id = $3, status = 'RUNNING', result = '', error_message = '', completed_at = NULL
     WHERE task_id = $1 AND run_id = $2`,
    [taskId, fromRunId, toRunId],
  );
  return (moved.rowCount ?? 0) > 0;
}

/** Progress of a planned task: its finished agents over all planned agents (synthesis is the last 10%). */
export async function recordTaskProgress(tx: Queryable, taskId: string): Promise<void> {
  await tx.query(
    `UPDATE tasks SET progress = greatest(progress, 0.9 * (
       SELECT count(*) FROM task_agents a WHERE a.task_id = $1 AND a.status <> 'RUNNING')::float8
       / greatest(coalesce(jsonb_array_length(plan->'agents'), 1), 1))
     WHERE task_id = $1`,
    [taskId],
  );
}

function toTaskRecord(row: TaskRow): TaskRecord {
  return {
    taskId: row.task_id,
    workflowId: row.workflow_id,
    runId: row.run_id,
    tenantId: row.tenant_id,
    userId: row.user_id,
    ...(row.submitted_by ? { submittedBy: row.submitted_by } : {}),
    sessionId: row.session_id,
    query: row.query,
    mode: row.mode,
    status: row.status,
    result: row.result,
    errorMessage: row.error_message,
    usage: {
      promptTokens: row.prompt_tokens,
      completionTokens: row.completion_tokens,
      totalTokens: row.total_tokens,
      costUsd: row.cost_usd,
      model: row.model,
      ...(row.usage_estimated ? { estimated: true } : {}),
    },
    cacheHit: row.cache_hit,
    createdAt: row.created_at,
    ...(row.completed_at ? { completedAt: row.completed_at } : {}),
    progress: row.progress,
    ...(row.plan ? { plan: row.plan } : {}),
    ...(row.eval_id ? { evalId: row.eval_id } : {}),
    ...(row.template ? { template: row.template } : {}),
  };
}

export async function findTask(db: Queryable, taskId: string): Promise<TaskRecord | undefined> {
  const found = await db.query<TaskRow>('SELECT * FROM tasks WHERE task_id = $1', [taskId]);
  return found.rows[0] ? toTaskRecord(found.rows[0]) : undefined;
}

/**
 * The task's status, its row locked until the transaction ends, so a write that must not follow
 * the task's end (an agent's event after the final one) is ordered against it.
 */
export async function lockedTaskStatus(tx: Queryable, taskId: string): Promise<TaskStatus | undefined> {
  const { rows } = await tx.query<{ status: TaskStatus }>('SELECT status FROM tasks WHERE task_id = $1 FOR UPDATE', [taskId]);
  return rows[0]?.status;
}

/** The task a workflow runs (task ids and workflow ids are equal by design, but a row says so). */
export async function findTaskByWorkflow(db: Queryable, workflowId: string): Promise<TaskRecord | undefined> {
  const found = await db.query<TaskRow>('SELECT * FROM tasks WHERE workflow_id = $1', [workflowId]);
  return found.rows[0] ? toTaskRecord(found.rows[0]) : undefined;
}

export interface TaskFilter {
  tenantId: string;
  userId?: string;
  sessionId?: string;
  status?: TaskStatus;
  /** Tasks whose ids start so: a schedule's runs. */
  taskIdPrefix?: string;
  limit: number;
  offset: number;
}

/** A tenant's tasks, newest first, with the count of all that match (also past the last page). */
export async function listTasks(db: Queryable, filter: TaskFilter): Promise<{ tasks: TaskRecord[]; total: number }> {
  const rows = await db.query<TaskRow & { total: string }>(
    `WITH matching AS (
       SELECT * FROM tasks
       WHERE tenant_id = $1 AND eval_id = '' AND ($2::text IS NULL OR user_id = $2) AND ($3::text IS NULL OR session_id = $3)
         AND ($4::text IS NULL OR status = $4) AND ($7::text IS NULL OR starts_with(task_id, $7)))
     SELECT (SELECT count(*) FROM matching) AS total, page.*
     FROM (SELECT 1) AS one
     LEFT JOIN LATERAL (SELECT * FROM matching ORDER BY created_at DESC, task_id LIMIT $5 OFFSET $6) AS page ON true`,
    [filter.tenantId, filter.userId || null, filter.sessionId || null, filter.status ?? null, filter.limit, filter.offset, filter.taskIdPrefix ?? null],
  );
  return {
    tasks: rows.rows.filter((row) => row.task_id !== null).map(toTaskRecord),
    total: Number(rows.rows[0]?.total ?? 0),
  };
}

/** How many tasks a tenant ran in one session and what they spent. */
export async function sessionSpend(db: Queryable, tenantId: string, sessionId: string): Promise<TokenCounts & { costUsd: number; tasks: number }> {
  const rows = await db.query<{ n: string; p: string; c: string; t: string; cost: number }>(
    `SELECT count(*) AS n, coalesce(sum(prompt_tokens), 0) AS p, coalesce(sum(completion_tokens), 0) AS c,
            coalesce(sum(total_tokens), 0) AS t, coalesce(sum(cost_usd), 0)::float8 AS cost
     FROM tasks WHERE tenant_id = $1 AND session_id = $2`,
    [tenantId, sessionId],
  );
  const row = rows.rows[0]!;
  return { tasks: Number(row.n), promptTokens: Number(row.p), completionTokens: Number(row.c), totalTokens: Number(row.t), costUsd: row.cost };
}

/** The workflows of a tenant's tasks in one session that have not finished. */
export async function unfinishedTasksInSession(db: Queryable, tenantId: string, sessionId: string): Promise<string[]> {
  const { rows } = await db.query<{ workflow_id: string }>(
    `SELECT workflow_id FROM tasks WHERE tenant_id = $1 AND session_id = $2 AND status IN ('QUEUED', 'RUNNING')`,
    [tenantId, sessionId],
  );
  return rows.map((row) => row.workflow_id);
}

/** How many of a tenant's tasks are queued or running. */
export async function countRunningTasks(db: Queryable, tenantId: string): Promise<number> {
  const { rows } = await db.query<{ n: string }>(`SELECT count(*) AS n FROM tasks WHERE tenant_id = $1 AND status IN ('QUEUED', 'RUNNING')`, [tenantId]);
  return Number(rows[0]!.n);
}

/** The deployment's queued and running tasks, counted by status and mode (the API's metrics). */
export async function countUnfinishedTasks(db: Queryable): Promise<{ status: TaskStatus; mode: ExecutionMode; count: number }[]> {
  const { rows } = await db.query<{ status: TaskStatus; mode: ExecutionMode; n: string }>(
    `SELECT status, mode, count(*) AS n FROM tasks WHERE status IN ('QUEUED', 'RUNNING') GROUP BY status, mode`,
  );
  return rows.map((row) => ({ status: row.status, mode: row.mode, count: Number(row.n) }));
}

/** How many of a tenant's tasks whose ids begin with `taskIdPrefix` (a schedule's runs) completed, and how many failed or timed out. */
export async function countTaskOutcomes(db: Queryable, tenantId: string, taskIdPrefix: string): Promise<{ completed: number; failed: number }> {
  const { rows } = await db.query<{ completed: string; failed: string }>(
    `SELECT count(*) FILTER (WHERE status = 'COMPLETED') AS completed, count(*) FILTER (WHERE status IN ('FAILED', 'TIMEOUT')) AS failed
       FROM tasks WHERE tenant_id = $1 AND starts_with(task_id, $2)`,
    [tenantId, taskIdPrefix],
  );
  return { completed: Number(rows[0]?.completed ?? 0), failed: Number(rows[0]?.failed ?? 0) };
}

/**
 * A completed answer to the same question (whitespace and case folded) by the same user of the
 * same tenant within `withinHours`: SIMPLE's cached answer. Answers are never shared across users.
 */
export async function findRecentAnswer(
  db: Queryable,
  asker: { taskId: string; tenantId: string; userId: string; query: string },
  withinHours: number,
): Promise<string | undefined> {
  const normalised = asker.query.trim().replace(/\s+/g, ' ').toLowerCase();
  const rows = await db.query<{ result: string }>(
    `SELECT result FROM tasks WHERE tenant_id = $1 AND user_id = $2 AND status = 'COMPLETED' AND task_id <> $4 AND eval_id = ''
       AND lower(regexp_replace(btrim(query), '\\s+', ' ', 'g')) = $3 AND completed_at > now() - make_interval(hours => $5)
     ORDER BY completed_at DESC LIMIT 1`,
    [asker.tenantId, asker.userId, normalised, asker.taskId, withinHours],
  );
  return rows.rows[0]?.result;
}
