import { z } from 'zod';
import type { TaskSettings } from './orchestration/task-settings';

// What a task may spend by default (read with the rest in core/config.ts): Weft's settings, with
// the seed's names accepted as aliases; Weft's name wins when both are set. 0 means no limit. A
// request may lower a limit (metadata.token_budget), never raise it.

export const budgetEnvSchema = z.object({
  WEFT_TASK_TOKEN_BUDGET: z.coerce.number().int().nonnegative().optional(),
  /** The seed's names for WEFT_TASK_TOKEN_BUDGET (the first one set counts). */
  TOKEN_BUDGET_PER_TASK: z.coerce.number().int().nonnegative().optional(),
  MAX_TOKENS_PER_REQUEST: z.coerce.number().int().nonnegative().optional(),
  WEFT_AGENT_TOKEN_BUDGET: z.coerce.number().int().nonnegative().optional(),
  /** The seed's name for WEFT_AGENT_TOKEN_BUDGET. */
  TOKEN_BUDGET_PER_AGENT: z.coerce.number().int().nonnegative().optional(),
  WEFT_TASK_COST_LIMIT_USD: z.coerce.number().nonnegative().optional(),
  /** The seed's name for WEFT_TASK_COST_LIMIT_USD. */
  MAX_COST_PER_REQUEST: z.coerce.number().nonnegative().optional(),
  WEFT_TENANT_DAILY_COST_LIMIT_USD: z.coerce.number().nonnegative().default(0),
});

export function budgetSettingsOf(
  e: z.infer<typeof budgetEnvSchema>,
): Pick<TaskSettings, 'taskTokenBudget' | 'agentTokenBudget' | 'taskCostLimitUsd' | 'tenantDailyCostLimitUsd'> {
  return {
    ...(e.WEFT_TENANT_DAILY_COST_LIMIT_USD > 0 ? { tenantDailyCostLimitUsd: e.WEFT_TENANT_DAILY_COST_LIMIT_USD } : {}),
    taskTokenBudget: e.WEFT_TASK_TOKEN_BUDGET ?? e.TOKEN_BUDGET_PER_TASK ?? e.MAX_TOKENS_PER_REQUEST ?? 0,
    agentTokenBudget: e.WEFT_AGENT_TOKEN_BUDGET ?? e.TOKEN_BUDGET_PER_AGENT ?? 0,
    taskCostLimitUsd: e.WEFT_TASK_COST_LIMIT_USD ?? e.MAX_COST_PER_REQUEST ?? 0,
  };
}

/** A request's own limit within the configured one: the smaller of the two that are set (0: unset). */
export function requestLimit(configured: number, requested: number): number {
  if (requested <= 0) return configured;
  return configured > 0 ? Math.min(configured, requested) : requested;
}
