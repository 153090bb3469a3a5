import type { HistoryPolicy } from '../llm/history-compression';
import type { PromptParams } from '../tools/tool';
import type { ModelTier } from './plan';

/** Limits a task runs under: from the request and the API's configuration, fixed at submit time. */
export interface TaskSettings {
  maxAgents: number;
  maxIterations: number;
  toolParallelism: number;
  /** Model steps a workflow runs before continuing in a fresh history. */
  stepsPerHistory: number;
  approvalTimeoutMs: number;
  /** A task whose estimated cost is above this needs approval (0: no threshold). */
  approvalCostThresholdUsd: number;
  taskTokenBudget: number;
  agentTokenBudget: number;
  taskCostLimitUsd: number;
  /** What all of the tenant's tasks may spend in a UTC day (0 or absent: no limit). */
  tenantDailyCostLimitUsd?: number;
  /** When each agent's transcript is compressed; absent in tasks started before compression existed. */
  history?: HistoryPolicy;
  /** Model steps may be answered from the tenant's response cache (context.enable_caching). */
  cacheModelSteps?: boolean;
  /** A lower memory cap for this task's Python programs (AgentService config.memory_limit_mb). */
  sandboxMemoryMb?: number;
  /** The caller's context.prompt_params, which vendor adapters may put into requests (an account id, say). */
  promptParams?: PromptParams;
  /** The tier a single-agent task's model steps use (context.model_tier); MEDIUM when absent. */
  modelTier?: ModelTier;
  /** A completed task's long answer is distilled into its user's memory (WEFT_USER_MEMORY=on). */
  rememberResults?: boolean;
  /**
   * The models' text as it streams is kept in the task's event log, not only sent to live readers:
   * a task run for OpenAI's Responses API, whose stream any API process can resume exactly.
   */
  recordPartials?: boolean;
}
