import { modelTiers, type ModelTier } from '../../core/orchestration/plan';

/** The seed's ModelTier enum name as Weft's tier; unspecified means the medium tier. */
export function modelTierOf(protoTier: string): ModelTier {
  const tier = protoTier.replace('MODEL_TIER_', '');
  return (modelTiers as readonly string[]).includes(tier) ? (tier as ModelTier) : 'MEDIUM';
}
