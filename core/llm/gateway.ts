import type { Pool } from 'pg';
import type { ModelTier } from '../orchestration/plan';
import { assistantMessage } from './chat-encoding';
import { createChatModel, type ChatCompletion, type ChatDelta, type ChatRequest, type TokenCounts } from './chat-model';
import { createEmbedder, type Embeddings } from './embeddings';
import { failoverRound, roundRetries, type Target } from './failover';
import { firstChoice, type CatalogModel, type ModelCatalog } from './model-catalog';
import { resolveModelName, type ModelAliases } from './model-aliases';
import { candidatesFor } from './model-candidates';
import { costOf } from './pricing';
import { createProviderGuard, type BreakerState } from './provider-guard';
import type { Provider } from './providers';
import { countMessageTokens } from './tokenizer';

// The model gateway: every model call of Weft goes through it. A request names a tier (the cheapest
// available model of the tier answers, the next ones in price order stand by) or a model (or alias);
// model-candidates.ts picks them, failover.ts tries them in turn, with retries.

export interface ModelRequest extends Omit<ChatRequest, 'model'> {
  tier?: ModelTier;
  /** A catalog model id or alias; overrides the tier. */
  model?: string;
  /** complete() streams from a model that can and hands over the text as it comes. */
  onPartial?: (text: string) => void;
}

/** Where an answer came from and what it cost. `model` is the catalog's id for it. */
export interface Served {
  model: string;
  provider: Provider;
  tier: ModelTier;
  costUsd: number;
}

export type GatewayCompletion = ChatCompletion & Served;
export type GatewayDelta = Exclude<ChatDelta, { kind: 'end' }> | (Extract<ChatDelta, { kind: 'end' }> & Served);

export interface ModelGateway {
  readonly catalog: ModelCatalog;
  complete(request: ModelRequest): Promise<GatewayCompletion>;
  /** Resolves once a provider has accepted the request; fallback happens before any delta is seen. */
  stream(request: ModelRequest): Promise<AsyncGenerator<GatewayDelta>>;
  embed(texts: readonly string[], model?: string): Promise<Embeddings & { provider: Provider }>;
  /** The model a tier's request goes to first (the cheapest available one). */
  firstChoice(tier: ModelTier): CatalogModel | undefined;
  breakerState(providerId: string): BreakerState;
}

export interface GatewayOptions {
  aliases?: ModelAliases;
  now?: () => number;
  /** Shares the providers' per-minute limits with every process using this database. */
  pool?: Pool;
}

/** Each provider of the catalog with its guard (breaker, per-minute limits), chat client and embedder. */
function connectProviders(catalog: ModelCatalog, guardOptions: { now: () => number; pool?: Pool }) {
  return new Map(
    catalog.providers.map((provider) => {
      const client = { baseURL: provider.base_url, apiKey: provider.apiKey, timeoutMs: provider.timeout_ms };
      return [provider.id, { guard: createProviderGuard(provider, catalog.resilience, guardOptions), chat: createChatModel(client), embedder: createEmbedder(client) }];
    }),
  );
}

/** A streamed reply as one completion, its text handed over as it comes. */
async function collect(deltas: AsyncGenerator<GatewayDelta>, onPartial: (text: string) => void): Promise<GatewayCompletion> {
  let reasoning = '';
  let content = '';
  const toolCalls: Array<{ id: string; name: string; arguments: string }> = [];
  for await (const delta of deltas) {
    if (delta.kind === 'thinking') reasoning += delta.text;
    else if (delta.kind === 'text') {
      content += delta.text;
      onPartial(delta.text);
    } else if (delta.kind === 'tool_call') toolCalls.push({ id: delta.id, name: delta.name, arguments: delta.arguments });
    else {
      const { finishReason, usage, model, provider, tier, costUsd } = delta;
      return { message: assistantMessage({ reasoning, content, toolCalls }), finishReason, usage, model, provider, tier, costUsd };
    }
  }
  throw new Error('the model stream ended without its final chunk');
}

/** A provider's stream with the gateway's view of who served it on its final delta, settled first. */
async function* withServed(deltas: AsyncGenerator<ChatDelta>, servedOf: (usage: TokenCounts) => Served, settle: (usage: TokenCounts) => Promise<void>): AsyncGenerator<GatewayDelta> {
  for await (const delta of deltas) {
    if (delta.kind !== 'end') {
      yield delta;
      continue;
    }
    await settle(delta.usage);
    yield { ...delta, ...servedOf(delta.usage) };
  }
}

export function createModelGateway(catalog: ModelCatalog, options: GatewayOptions = {}): ModelGateway {
  const { resilience } = catalog;
  const now = options.now ?? Date.now;
  const providers = connectProviders(catalog, { now, ...(options.pool ? { pool: options.pool } : {}) });
  const providerOf = (id: string) => providers.get(id)!;

  const retrying = roundRetries(resilience);
  const candidates = (request: ModelRequest, needs: { streaming?: boolean }) => candidatesFor(catalog, options.aliases ?? {}, request, needs);

  async function served<T>(request: ModelRequest, needs: { streaming?: boolean }, call: (model: CatalogModel) => Promise<T>) {
    const { wanted, models, refused } = candidates(request, needs);
    const estimate = (target: Target) => {
      const provider = providerOf(target.provider).guard.provider;
      // Counting costs a tokenizer pass; only a tokens-per-minute limit needs it.
      if (provider.tokens_per_minute === 0) return 0;
      return countMessageTokens(request.messages, target.tokenizer ?? 'o200k_base', request.system) + (request.sampling?.maxTokens ?? 0);
    };
    const guardOf = (id: string) => providerOf(id).guard;
    const result = await retrying.execute(
      () => failoverRound({ wanted, targets: models, refusedUpFront: refused, guardOf, estimate, call: (target) => call(target as CatalogModel), now }),
      request.signal,
    );
    return { ...result, model: result.target as CatalogModel };
  }

  const servedBy = (model: CatalogModel, usage: TokenCounts): Served => ({
    model: model.id,
    provider: providerOf(model.provider).guard.provider.kind,
    tier: model.tier,
    costUsd: costOf(model, usage),
  });

  async function stream(request: ModelRequest): Promise<AsyncGenerator<GatewayDelta>> {
    const { model, guard, tokens, value } = await served(request, { streaming: true }, (target) =>
      providerOf(target.provider).chat.openStream({ ...request, model: target.id }),
    );
    return withServed(value, (usage) => servedBy(model, usage), (usage) => guard.settleTokens(tokens, usage.totalTokens));
  }

  return {
    catalog,

    async complete(request) {
      const { onPartial } = request;
      if (onPartial && candidates(request, { streaming: true }).models.length > 0) return collect(await stream(request), onPartial);
      const { model, guard, tokens, value } = await served(request, {}, (target) =>
        providerOf(target.provider).chat.complete({ ...request, model: target.id }),
      );
      await guard.settleTokens(tokens, value.usage.totalTokens);
      return { ...value, ...servedBy(model, value.usage) };
    },

    stream,

    async embed(texts, model) {
      const id = model ? resolveModelName(model, options.aliases ?? {}) : catalog.embedding.model;
      const target = { id, provider: catalog.embedding.provider };
      const { value } = await retrying.execute(() =>
        failoverRound({
          wanted: `embeddings with model ${id}`,
          targets: [target],
          refusedUpFront: [],
          guardOf: (provider) => providerOf(provider).guard,
          estimate: () => 0,
          call: () => providerOf(target.provider).embedder.embed(texts, id),
          now,
        }),
      );
      return { ...value, provider: providerOf(target.provider).guard.provider.kind };
    },

    firstChoice: (tier) => firstChoice(catalog, tier),

    breakerState: (providerId) => {
      const provider = providers.get(providerId);
      if (!provider) throw new Error(`unknown provider ${providerId}`);
      return provider.guard.breakerState();
    },
  };
}

