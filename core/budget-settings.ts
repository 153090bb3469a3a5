import { z } from 'zod';
import type { TaskSettings } from './orchestration/task-settings';

// What a task may spend by default (read with the rest in core/config.ts): Weft's settings, with
// Shannon's names accepted as aliases; Weft's name wins when both are set. 0 means no limit. A
// request may lower a limit (metadata.token_budget), never raise it.

export const budgetEnvSchema = z.object({
  WEFT_TASK_TOKEN_BUDGET: z.coerce
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe("Tokens one task may spend (0: no limit); a request's `metadata.token_budget` may lower it, never raise it."),
  TOKEN_BUDGET_PER_TASK: z.coerce
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe("Shannon's name for WEFT_TASK_TOKEN_BUDGET (Weft's wins when both are set)."),
  MAX_TOKENS_PER_REQUEST: z.coerce
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe("Shannon's other name for WEFT_TASK_TOKEN_BUDGET (read after TOKEN_BUDGET_PER_TASK)."),
  WEFT_AGENT_TOKEN_BUDGET: z.coerce.number().int().nonnegative().optional().describe('Tokens one agent of a task may spend (0: no limit).'),
  TOKEN_BUDGET_PER_AGENT: z.coerce
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe("Shannon's name for WEFT_AGENT_TOKEN_BUDGET (Weft's wins when both are set)."),
  WEFT_TASK_COST_LIMIT_USD: z.coerce
    .number()
    .nonnegative()
    .optional()
    .describe("Dollars one task may spend (0: no limit); a request's `context.cost_limit_usd` may lower it."),
  MAX_COST_PER_REQUEST: z.coerce.number().nonnegative().optional().describe("Shannon's name for WEFT_TASK_COST_LIMIT_USD (Weft's wins when both are set)."),
  WEFT_TENANT_DAILY_COST_LIMIT_USD: z.coerce
    .number()
    .nonnegative()
    .default(0)
    .describe("Dollars all of one tenant's tasks may spend in a UTC day (0: no limit)."),
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
