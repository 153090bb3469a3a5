import type { Budget } from '../core/tasks/run/budget';
import type { TaskSettings } from '../core/orchestration/task-settings';

export type { TaskSettings };

/** The budgets a model step checks; 0 in the settings means no limit. */
export function budgetOf(settings: TaskSettings): Budget {
  return {
    ...(settings.taskTokenBudget > 0 ? { taskTokens: settings.taskTokenBudget } : {}),
    ...(settings.agentTokenBudget > 0 ? { agentTokens: settings.agentTokenBudget } : {}),
    ...(settings.taskCostLimitUsd > 0 ? { taskCostUsd: settings.taskCostLimitUsd } : {}),
    ...(settings.tenantDailyCostLimitUsd ? { tenantCostUsdPerDay: settings.tenantDailyCostLimitUsd } : {}),
  };
}

/** The agent-loop settings every agent of a task shares (its history policy may be its own). */
export function loopSettingsOf(settings: TaskSettings) {
  return {
    maxIterations: settings.maxIterations,
    stepsPerHistory: settings.stepsPerHistory,
    ...(settings.cacheModelSteps ? { cacheModelSteps: true } : {}),
    ...(settings.recordPartials ? { recordPartials: true } : {}),
    ...(settings.sandboxMemoryMb ? { sandboxMemoryMb: settings.sandboxMemoryMb } : {}),
    ...(settings.promptParams ? { promptParams: settings.promptParams } : {}),
    toolParallelism: settings.toolParallelism,
    budget: budgetOf(settings),
    approvalTimeoutMs: settings.approvalTimeoutMs,
  };
}
