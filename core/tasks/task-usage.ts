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

/** The task row's usage columns, set from every recorded step (the SET list of an UPDATE of `tasks`). */
export const usageTotalsFromSteps = `prompt_tokens = u.p, completion_tokens = u.c, total_tokens = u.t, cost_usd = u.cost, cache_hit = u.hit
     FROM (SELECT coalesce(sum(prompt_tokens), 0) AS p, coalesce(sum(completion_tokens), 0) AS c,
                  coalesce(sum(total_tokens), 0) AS t, coalesce(sum(cost_usd), 0) AS cost, coalesce(bool_or(cache_hit), false) AS hit
           FROM task_usage WHERE task_id = $1) u`;

/**
 * Records a step's usage, with the task's row locked as the task's end locks it before summing the
 * steps: a step that commits after its task ended (a cancelled agent's call that finished anyway)
 * sums the ended task's totals again, so they never miss it. The lock and the insert are one
 * statement; whichever of the two waits, the status it reads is the one current when it got the lock.
 */
export async function recordStepUsage(tx: Queryable, usage: StepUsage): Promise<void> {
  const { rows } = await tx.query<{ status: string | null; inserted: boolean }>(
    `WITH task AS (SELECT status FROM tasks WHERE task_id = $1 FOR UPDATE),
          added AS (
            INSERT INTO task_usage (task_id, step_key, agent_id, model, prompt_tokens, completion_tokens, total_tokens, cost_usd, cache_hit, recorded_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (task_id, step_key) DO NOTHING RETURNING 1
          )
     SELECT (SELECT status FROM task) AS status, EXISTS (SELECT 1 FROM added) AS inserted`,
    [usage.taskId, usage.stepKey, usage.agentId, usage.model, usage.promptTokens, usage.completionTokens, usage.totalTokens, usage.costUsd, usage.cacheHit ?? false, usage.at],
  );
  const { status, inserted } = rows[0]!;
  const ended = status !== null && !['QUEUED', 'RUNNING'].includes(status);
  if (inserted && ended) await tx.query(`UPDATE tasks SET ${usageTotalsFromSteps} WHERE task_id = $1`, [usage.taskId]);
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
