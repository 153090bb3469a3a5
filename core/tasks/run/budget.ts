import type { Pool } from 'pg';
import { spendOf } from '../task-usage';

/** Limits a model step checks against the recorded spend; an absent one is no limit. */
export interface Budget {
  taskTokens?: number;
  agentTokens?: number;
  taskCostUsd?: number;
  /** What all of the tenant's tasks may spend in a UTC day (checked when a step reserves). */
  tenantCostUsdPerDay?: number;
}

function overBudget(budget: Budget, task: { tokens: number; costUsd: number }, agent: { tokens: number }): string | undefined {
  if (budget.taskTokens && task.tokens > budget.taskTokens) return `task used ${task.tokens} tokens of its ${budget.taskTokens} token budget`;
  if (budget.agentTokens && agent.tokens > budget.agentTokens) return `agent used ${agent.tokens} tokens of its ${budget.agentTokens} token budget`;
  if (budget.taskCostUsd && task.costUsd > budget.taskCostUsd) {
    return `task cost $${task.costUsd.toFixed(4)} of its $${budget.taskCostUsd} cost limit`;
  }
  return undefined;
}

/** Why the task's (or the agent's) recorded spend is over its budget; nothing is read when there is no budget. */
export async function overBudgetNow(pool: Pool, taskId: string, agentId: string, budget: Budget | undefined): Promise<string | undefined> {
  if (!budget || (!budget.taskTokens && !budget.agentTokens && !budget.taskCostUsd)) return undefined;
  const agent = budget.agentTokens ? await spendOf(pool, taskId, agentId) : { tokens: 0, costUsd: 0 };
  return overBudget(budget, await spendOf(pool, taskId), agent);
}
