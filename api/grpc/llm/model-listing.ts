import type { ModelGateway } from '../../../core/llm/gateway';
import { modelTiers } from '../../../core/orchestration/plan';
import type { ListModelsRequest__Output } from '../../../protos/generated/shannon/llm/ListModelsRequest';
import type { ListModelsResponse } from '../../../protos/generated/shannon/llm/ListModelsResponse';
import { modelTierOf } from '../model-tiers';

/** ListModels: the catalog's models by tier, filtered by tier and provider kind, available unless their circuit is open. */
export function listModels(gateway: ModelGateway, request: ListModelsRequest__Output): ListModelsResponse {
  const tier = request.tier === 'MODEL_TIER_UNSPECIFIED' ? undefined : modelTierOf(request.tier);
  const provider = request.provider === 'PROVIDER_UNSPECIFIED' ? undefined : request.provider.replace('PROVIDER_', '');
  const { catalog } = gateway;
  const providers = new Map(catalog.providers.map((p) => [p.id, p]));
  return {
    models: modelTiers.flatMap((t) =>
      catalog.models
        .filter((model) => t === model.tier && (!tier || tier === model.tier) && (!provider || providers.get(model.provider)!.kind === provider))
        .map((model) => ({
          id: model.id,
          name: model.id,
          provider: `PROVIDER_${providers.get(model.provider)!.kind}` as const,
          tier: `MODEL_TIER_${model.tier}` as const,
          context_window: model.context_window,
          cost_per_1k_prompt_tokens: model.prompt_per_1k,
          cost_per_1k_completion_tokens: model.completion_per_1k,
          supports_tools: model.supports_tools,
          supports_streaming: model.supports_streaming,
          // A provider whose circuit is open is not taking calls now.
          available: model.available && gateway.breakerState(model.provider) !== 'open',
        })),
    ),
  };
}
