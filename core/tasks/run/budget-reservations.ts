import type { Pool } from 'pg';
import { withTransaction, type Queryable } from '../../db/transaction';
import type { Budget } from './budget';

// Budgets that hold with agents in parallel: a step reserves what it is about to spend before it
// spends it, inside a lock of its task (and of its tenant when the tenant has a budget), against
// what was spent plus what other steps have reserved and not settled. The nesting: a tenant's
// daily budget contains its tasks', a task's contains its agents'. A step's model reply may
// still cost more than its estimate (the completion): overspend is bounded by the one step in
// flight per agent. Keyed by the step, a retried step finds its reservation; a replayed workflow
// runs no activity and reserves nothing.

export interface StepReservation {
  taskId: string;
  agentId: string;
  /** The step's usage key: the same for every attempt of the step. */
  stepKey: string;
  tokens: number;
  costUsd: number;
  at: Date;
}

interface Spent {
  tokens: number;
  costUsd: number;
}

/** Recorded usage plus open reservations: of the task, or of one of its agents. */
async function committedOf(tx: Queryable, taskId: string, agentId?: string): Promise<Spent> {
  const { rows } = await tx.query<{ tokens: string; cost: number }>(
    `SELECT (SELECT coalesce(sum(total_tokens), 0) FROM task_usage WHERE task_id = $1 AND ($2::text IS NULL OR agent_id = $2))
          + (SELECT coalesce(sum(tokens), 0) FROM budget_reservations WHERE task_id = $1 AND settled_at IS NULL AND ($2::text IS NULL OR agent_id = $2)) AS tokens,
            (SELECT coalesce(sum(cost_usd), 0) FROM task_usage WHERE task_id = $1 AND ($2::text IS NULL OR agent_id = $2))
          + (SELECT coalesce(sum(cost_usd), 0) FROM budget_reservations WHERE task_id = $1 AND settled_at IS NULL AND ($2::text IS NULL OR agent_id = $2)) AS cost`,
    [taskId, agentId ?? null],
  );
  return { tokens: Number(rows[0]!.tokens), costUsd: Number(rows[0]!.cost) };
}

/** What a tenant's tasks spent since the start of the UTC day, plus their open reservations. */
async function tenantCommittedToday(tx: Queryable, tenantId: string, at: Date): Promise<number> {
  const { rows } = await tx.query<{ cost: number }>(
    `SELECT (SELECT coalesce(sum(u.cost_usd), 0) FROM task_usage u JOIN tasks t ON t.task_id = u.task_id
             WHERE t.tenant_id = $1 AND u.recorded_at >= date_trunc('day', $2::timestamptz AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')
          + (SELECT coalesce(sum(cost_usd), 0) FROM budget_reservations WHERE tenant_id = $1 AND settled_at IS NULL) AS cost`,
    [tenantId, at],
  );
  return Number(rows[0]!.cost);
}

/** Why reserving `step` would take a budget past its limit, outermost first; undefined when it fits. */
async function refusalOf(tx: Queryable, step: StepReservation & { tenantId: string }, budget: Budget): Promise<string | undefined> {
  if (budget.tenantCostUsdPerDay) {
    const tenant = await tenantCommittedToday(tx, step.tenantId, step.at);
    if (tenant + step.costUsd > budget.tenantCostUsdPerDay)
      return `tenant spent $${tenant.toFixed(4)} of its $${budget.tenantCostUsdPerDay} daily budget; the next step needs about $${step.costUsd.toFixed(4)}`;
  }
  if (budget.taskTokens || budget.taskCostUsd) {
    const task = await committedOf(tx, step.taskId);
    if (budget.taskTokens && task.tokens + step.tokens > budget.taskTokens)
      return `task used ${task.tokens} tokens of its ${budget.taskTokens} token budget; the next step needs about ${step.tokens}`;
    if (budget.taskCostUsd && task.costUsd + step.costUsd > budget.taskCostUsd)
      return `task cost $${task.costUsd.toFixed(4)} of its $${budget.taskCostUsd} cost limit; the next step needs about $${step.costUsd.toFixed(4)}`;
  }
  if (budget.agentTokens) {
    const agent = await committedOf(tx, step.taskId, step.agentId);
    if (agent.tokens + step.tokens > budget.agentTokens)
      return `agent used ${agent.tokens} tokens of its ${budget.agentTokens} token budget; the next step needs about ${step.tokens}`;
  }
  return undefined;
}

export const hasBudget = (budget: Budget | undefined): budget is Budget =>
  Boolean(budget && (budget.taskTokens || budget.agentTokens || budget.taskCostUsd || budget.tenantCostUsdPerDay));

/** Reserves the step's estimate, once; why not, when a budget it is under cannot take it. */
export function reserveStep(pool: Pool, step: StepReservation, budget: Budget): Promise<string | undefined> {
  return withTransaction(pool, async (tx) => {
    // One reservation at a time per task (the lock a step's usage takes too), and per tenant.
    const task = await tx.query<{ tenant_id: string }>('SELECT tenant_id FROM tasks WHERE task_id = $1 FOR UPDATE', [step.taskId]);
    const tenantId = task.rows[0]?.tenant_id ?? '';
    if (budget.tenantCostUsdPerDay) await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`weft budget ${tenantId}`]);
    const held = await tx.query('SELECT 1 FROM budget_reservations WHERE task_id = $1 AND step_key = $2', [step.taskId, step.stepKey]);
    if ((held.rowCount ?? 0) > 0) return undefined;
    const refused = await refusalOf(tx, { ...step, tenantId }, budget);
    if (refused) return refused;
    await tx.query(
      `INSERT INTO budget_reservations (task_id, step_key, tenant_id, agent_id, tokens, cost_usd, reserved_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [step.taskId, step.stepKey, tenantId, step.agentId, step.tokens, step.costUsd, step.at],
    );
    return undefined;
  });
}

/** In the transaction that records the step's usage: its reservation counts no more (a task's end settles the rest, closeTaskLeftovers). */
export async function settleReservations(tx: Queryable, taskId: string, at: Date, stepKey: string): Promise<void> {
  await tx.query('UPDATE budget_reservations SET settled_at = $3 WHERE task_id = $1 AND step_key = $2 AND settled_at IS NULL', [taskId, stepKey, at]);
}
