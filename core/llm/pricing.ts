import type { TokenCounts } from './chat-model';
import type { CatalogModel } from './model-catalog';

type Prices = Pick<CatalogModel, 'prompt_per_1k' | 'completion_per_1k' | 'cached_prompt_per_1k'>;

/**
 * USD for a call at the catalog's prices. Prompt tokens the provider served from its prompt cache
 * are charged at the cached price when the catalog has one.
 */
export function costOf(prices: Prices | undefined, usage: TokenCounts): number {
  if (!prices) return 0;
  const cached = Math.min(usage.cachedPromptTokens ?? 0, usage.promptTokens);
  const cachedPrice = prices.cached_prompt_per_1k ?? prices.prompt_per_1k;
  return ((usage.promptTokens - cached) * prices.prompt_per_1k + cached * cachedPrice + usage.completionTokens * prices.completion_per_1k) / 1000;
}
