import type { Queryable } from '../db/transaction';
import type { TokenCounts } from '../llm/chat-model';

// Usage of every model step, keyed by the step's record: a retried step never counts twice, and
// budgets are checked against what was actually recorded.

export interface StepUsage extends TokenCounts {
  taskId: string;
  stepKey: string;
  agentId: string;
  model: string;
  costUsd: number;
  /** Answered from the response cache: nothing was spent. */
  cacheHit?: boolean;
  at: Date;
}

export interface Spend {
  tokens: number;
  costUsd: number;
}

/** The task row's usage columns, set from every recorded step (in the SET list of an UPDATE of `tasks`; $1 is the task). */
export const usageTotalsFromSteps = `(prompt_tokens, completion_tokens, total_tokens, cost_usd, cache_hit, usage_estimated) =
       (SELECT coalesce(sum(prompt_tokens), 0), coalesce(sum(completion_tokens), 0), coalesce(sum(total_tokens), 0),
               coalesce(sum(cost_usd), 0), coalesce(bool_or(cache_hit), false), coalesce(bool_or(estimated), false)
        FROM task_usage WHERE task_id = $1)`;

/** A step's usage as the statements that record it take it: task_usage's columns, in its insert's order. */
export const stepUsageParams = (usage: StepUsage) => [
  usage.taskId,
  usage.stepKey,
  usage.agentId,
  usage.model,
  usage.promptTokens,
  usage.completionTokens,
  usage.totalTokens,
  usage.costUsd,
  usage.cacheHit ?? false,
  usage.at,
  usage.estimated ?? false,
];

/**
 * Records a step's usage, with the task's row locked as the task's end locks it before summing the
 * steps: a step that commits after its task ended (a cancelled agent's call that finished anyway)
 * sums the ended task's totals again, so they never miss it. The lock and the insert are one
 * statement; the sum is a statement of its own, sent with it (pipelined), so its snapshot and the
 * status it reads are taken after the lock. It changes the row only when the task has ended.
 */
export async function recordStepUsage(tx: Queryable, usage: StepUsage): Promise<void> {
  await Promise.all([
    tx.query(
      `WITH task AS (SELECT 1 FROM tasks WHERE task_id = $1 FOR UPDATE),
            added AS (
              INSERT INTO task_usage (task_id, step_key, agent_id, model, prompt_tokens, completion_tokens, total_tokens, cost_usd, cache_hit, recorded_at, estimated)
              VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (task_id, step_key) DO NOTHING
            )
       SELECT count(*) FROM task`,
      stepUsageParams(usage),
    ),
    tx.query(`UPDATE tasks SET ${usageTotalsFromSteps} WHERE task_id = $1 AND status NOT IN ('QUEUED', 'RUNNING')`, [usage.taskId]),
  ]);
}

/** What a task (or one of its agents) has spent so far. */
export async function spendOf(db: Queryable, taskId: string, agentId?: string): Promise<Spend> {
  const rows = await db.query<{ tokens: string; cost: number }>(
    `SELECT coalesce(sum(total_tokens), 0) AS tokens, coalesce(sum(cost_usd), 0)::float8 AS cost
     FROM task_usage WHERE task_id = $1 AND ($2::text IS NULL OR agent_id = $2)`,
    [taskId, agentId ?? null],
  );
  return { tokens: Number(rows.rows[0]!.tokens), costUsd: rows.rows[0]!.cost };
}

export async function usageTotals(db: Queryable, taskId: string): Promise<TokenCounts & { costUsd: number }> {
  const rows = await db.query<{ p: string; c: string; t: string; cost: number }>(
    `SELECT coalesce(sum(prompt_tokens), 0) AS p, coalesce(sum(completion_tokens), 0) AS c,
            coalesce(sum(total_tokens), 0) AS t, coalesce(sum(cost_usd), 0)::float8 AS cost
     FROM task_usage WHERE task_id = $1`,
    [taskId],
  );
  const row = rows.rows[0]!;
  return { promptTokens: Number(row.p), completionTokens: Number(row.c), totalTokens: Number(row.t), costUsd: row.cost };
}
