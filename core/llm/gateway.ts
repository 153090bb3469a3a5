import type { Pool } from 'pg';
import type { ModelTier } from '../orchestration/plan';
import { assistantMessage } from './chat-encoding';
import { createChatModel, type ChatCompletion, type ChatDelta, type ChatRequest, type TokenCounts } from './chat-model';
import { createEmbedder, type Embeddings } from './embeddings';
import { beyondMaxWait, failoverRound, roundRetries, type Target } from './failover';
import { firstChoice, type CatalogModel, type ModelCatalog } from './model-catalog';
import { resolveModelName, type ModelAliases } from './model-aliases';
import { candidatesFor } from './model-candidates';
import { costOf } from './pricing';
import { createProviderGuard, type BreakerState } from './provider-guard';
import type { Provider } from './providers';
import { countMessageTokens } from './tokenizer';
import type { ModelObserver } from '../telemetry/model-metrics';
import { producedText, usageOrEstimate } from './usage-estimate';

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

/** The request as one candidate model gets it: a JSON schema only for a model whose provider enforces one. */
function requestFor({ responseFormat, ...request }: ModelRequest, target: CatalogModel): ChatRequest {
  return { ...request, model: target.id, ...(responseFormat && target.supports_json_schema ? { responseFormat } : {}) };
}

export interface GatewayOptions {
  aliases?: ModelAliases;
  now?: () => number;
  /** Shares the providers' per-minute limits with every process using this database. */
  pool?: Pool;
  /** Sees every call's outcome (metrics). */
  observer?: ModelObserver;
  /**
   * Whether a provider's Retry-After is waited for here (the default). A worker's gateway leaves
   * the wait to Temporal's retry of its activity: the call fails at once with the wait it asked for.
   */
  waitsForRetryAfter?: boolean;
}

/** Each provider of the catalog with its guard (breaker, per-minute limits), chat client and embedder. */
function connectProviders(catalog: ModelCatalog, guardOptions: { now: () => number; pool?: Pool }) {
  return new Map(
    catalog.providers.map((provider) => {
      const client = { baseURL: provider.base_url, apiKey: provider.apiKey, timeoutMs: provider.timeout_ms };
      return [
        provider.id,
        { guard: createProviderGuard(provider, catalog.resilience, guardOptions), chat: createChatModel(client), embedder: createEmbedder(client) },
      ];
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

/**
 * A provider's stream with the gateway's view of who served it on its final delta, settled first;
 * its usage counted by Weft when the provider reported none.
 */
async function* withServed(
  deltas: AsyncGenerator<ChatDelta>,
  usageOf: (reported: TokenCounts, produced: string) => TokenCounts,
  servedOf: (usage: TokenCounts) => Served,
  settle: (usage: TokenCounts) => Promise<void>,
): AsyncGenerator<GatewayDelta> {
  let produced = '';
  for await (const delta of deltas) {
    if (delta.kind !== 'end') {
      produced += delta.kind === 'tool_call' ? `${delta.name}${delta.arguments}` : delta.text;
      yield delta;
      continue;
    }
    const usage = usageOf(delta.usage, produced);
    await settle(usage);
    yield { ...delta, usage, ...servedOf(usage) };
  }
}

/** What a request may take of a provider's tokens per minute: counted (a tokenizer pass) only when the provider has that limit. */
function tokenEstimate(tokensPerMinute: number, target: Target, request: ModelRequest): number {
  if (tokensPerMinute === 0) return 0;
  return countMessageTokens(request.messages, target.tokenizer ?? 'o200k_base', request.system) + (request.sampling?.maxTokens ?? 0);
}

export function createModelGateway(catalog: ModelCatalog, options: GatewayOptions = {}): ModelGateway {
  const { resilience } = catalog;
  const now = options.now ?? Date.now;
  const providers = connectProviders(catalog, { now, ...(options.pool ? { pool: options.pool } : {}) });
  const providerOf = (id: string) => providers.get(id)!;

  const retrying = roundRetries(resilience, options.waitsForRetryAfter ?? true);
  const candidates = (request: ModelRequest, needs: { streaming?: boolean }) => candidatesFor(catalog, options.aliases ?? {}, request, needs);

  async function served<T>(request: ModelRequest, needs: { streaming?: boolean }, call: (model: CatalogModel) => Promise<T>) {
    const { wanted, models, refused } = candidates(request, needs);
    const estimate = (target: Target) => tokenEstimate(providerOf(target.provider).guard.provider.tokens_per_minute, target, request);
    const guardOf = (id: string) => providerOf(id).guard;
    const startedAt = performance.now();
    const seconds = () => (performance.now() - startedAt) / 1000;
    const result = await retrying
      .execute(
        () => failoverRound({ wanted, targets: models, refusedUpFront: refused, guardOf, estimate, call: (target) => call(target as CatalogModel), now }),
        request.signal,
      )
      .catch((err: unknown) => {
        options.observer?.failed({ wanted, seconds: seconds() });
        throw beyondMaxWait(err, resilience);
      });
    const model = result.target as CatalogModel;
    /** Settles the provider's token budget with what the answer used, and reports the call. */
    const settle = async (usage: TokenCounts) => {
      await result.guard.settleTokens(result.tokens, usage.totalTokens);
      const { provider, costUsd } = servedBy(model, usage);
      options.observer?.served({ provider, model: model.id, usage, costUsd, seconds: seconds(), failedOver: model.id !== models[0]?.id });
    };
    return { value: result.value, model, settle };
  }

  const servedBy = (model: CatalogModel, usage: TokenCounts): Served => ({
    model: model.id,
    provider: providerOf(model.provider).guard.provider.kind,
    tier: model.tier,
    costUsd: costOf(model, usage),
  });

  async function stream(request: ModelRequest): Promise<AsyncGenerator<GatewayDelta>> {
    const { model, settle, value } = await served(request, { streaming: true }, (target) =>
      providerOf(target.provider).chat.openStream(requestFor(request, target)),
    );
    return withServed(
      value,
      (reported, produced) => usageOrEstimate(reported, request, produced, model.tokenizer),
      (usage) => servedBy(model, usage),
      settle,
    );
  }

  return {
    catalog,

    async complete(request) {
      const { onPartial } = request;
      if (onPartial && candidates(request, { streaming: true }).models.length > 0) return collect(await stream(request), onPartial);
      const { model, settle, value } = await served(request, {}, (target) => providerOf(target.provider).chat.complete(requestFor(request, target)));
      const usage = usageOrEstimate(value.usage, request, producedText(value.message), model.tokenizer);
      await settle(usage);
      return { ...value, usage, ...servedBy(model, usage) };
    },

    stream,

    async embed(texts, model) {
      const id = model ? resolveModelName(model, options.aliases ?? {}) : catalog.embedding.model;
      const provider = providerOf(catalog.embedding.provider);
      const call = () => provider.embedder.embed(texts, id);
      const round = {
        wanted: `embeddings with model ${id}`,
        targets: [{ id, provider: catalog.embedding.provider }],
        refusedUpFront: [],
        estimate: () => 0,
        now,
      };
      const { value } = await retrying.execute(() => failoverRound({ ...round, guardOf: () => provider.guard, call }));
      return { ...value, provider: provider.guard.provider.kind };
    },

    firstChoice: (tier) => firstChoice(catalog, tier),

    breakerState: (providerId) => {
      const provider = providers.get(providerId);
      if (!provider) throw new Error(`unknown provider ${providerId}`);
      return provider.guard.breakerState();
    },
  };
}
