import { z } from 'zod';
import type { TokenCounts } from './chat-model';

// Prices in USD per 1K tokens by model, from WEFT_MODEL_PRICES (JSON). Unknown models cost 0 and
// are reported as such; the LLM gateway's model catalog will supersede this table.
const pricesSchema = z.record(z.string(), z.strictObject({ prompt: z.number().nonnegative(), completion: z.number().nonnegative() }));
export type ModelPrices = z.infer<typeof pricesSchema>;

export function parseModelPrices(json: string | undefined): ModelPrices {
  if (!json) return {};
  return pricesSchema.parse(JSON.parse(json));
}

export function costOf(prices: ModelPrices, model: string, usage: TokenCounts): number {
  const price = prices[model];
  if (!price) return 0;
  return (usage.promptTokens / 1000) * price.prompt + (usage.completionTokens / 1000) * price.completion;
}
