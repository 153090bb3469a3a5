import type { Budget } from '../activities/model-step';
import type { TaskSettings } from '../core/orchestration/task-settings';

export type { TaskSettings };

/** The budgets a model step checks; 0 in the settings means no limit. */
export function budgetOf(settings: TaskSettings): Budget {
  return {
    ...(settings.taskTokenBudget > 0 ? { taskTokens: settings.taskTokenBudget } : {}),
    ...(settings.agentTokenBudget > 0 ? { agentTokens: settings.agentTokenBudget } : {}),
    ...(settings.taskCostLimitUsd > 0 ? { taskCostUsd: settings.taskCostLimitUsd } : {}),
  };
}
