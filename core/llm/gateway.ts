import { ExponentialBackoff, handleWhen, isBrokenCircuitError, retry, type IBackoffFactory, type IRetryBackoffContext } from 'cockatiel';
import type { ModelTier } from '../orchestration/plan';
import { assistantMessage } from './chat-encoding';
import { createChatModel, type ChatCompletion, type ChatDelta, type ChatRequest, type TokenCounts } from './chat-model';
import { createEmbedder, type Embeddings } from './embeddings';
import { ModelUnavailableError, UnknownModelError } from './gateway-errors';
import { findModel, firstChoice, tierModels, type CatalogModel, type ModelCatalog } from './model-catalog';
import { resolveModelName, type ModelAliases } from './model-aliases';
import { costOf } from './pricing';
import { describeModelError, isRateLimitError, isRetryableModelError, retryAfterMsOf } from './provider-errors';
import { createProviderGuard, type BreakerState, type Refusal } from './provider-guard';
import type { Provider } from './providers';
import { countMessageTokens } from './tokenizer';

// The model gateway: every model call of Weft goes through it. A request names a tier (the cheapest
// available model of the tier answers, the next ones in price order stand by) or a model (or alias).
// Each round tries every candidate once, skipping providers whose circuit is open, that are over
// their per-minute limits or that asked to be left alone (Retry-After); a round that no candidate
// answers is retried with exponential backoff and jitter, waiting at least what a provider asked.

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
}

interface Target {
  id: string;
  provider: string;
  tokenizer?: CatalogModel['tokenizer'];
}

/** Waits the backoff's delay, or longer when the providers asked for more (Retry-After). */
function honouringRetryAfter(backoff: IBackoffFactory<IRetryBackoffContext<unknown>>): IBackoffFactory<IRetryBackoffContext<unknown>> {
  return {
    next(context) {
      const step = backoff.next(context);
      const error = 'error' in context.result ? context.result.error : undefined;
      const asked = error instanceof ModelUnavailableError ? (error.retryAfterMs ?? 0) : 0;
      return { duration: Math.max(step.duration, asked), next: (later) => honouringRetryAfter(step).next(later) };
    },
  };
}

export function createModelGateway(catalog: ModelCatalog, options: GatewayOptions = {}): ModelGateway {
  const { resilience } = catalog;
  const now = options.now ?? Date.now;
  const providers = new Map(
    catalog.providers.map((provider) => {
      const client = { baseURL: provider.base_url, apiKey: provider.apiKey, timeoutMs: provider.timeout_ms };
      return [provider.id, { guard: createProviderGuard(provider, resilience, now), chat: createChatModel(client), embedder: createEmbedder(client) }];
    }),
  );
  const providerOf = (id: string) => providers.get(id)!;

  const retrying = retry(
    handleWhen((err) => err instanceof ModelUnavailableError && (err.retryAfterMs ?? 0) <= resilience.max_retry_after_ms),
    {
      maxAttempts: resilience.max_attempts - 1,
      backoff: honouringRetryAfter(new ExponentialBackoff({ initialDelay: resilience.initial_backoff_ms, maxDelay: resilience.max_backoff_ms })),
    },
  );

  /** The models that may answer, best first, and how to name them in errors. */
  function candidatesFor(request: ModelRequest, needs: { streaming?: boolean }): { wanted: string; models: CatalogModel[]; refused: string[] } {
    let wanted: string;
    let models: CatalogModel[];
    if (request.model) {
      const id = resolveModelName(request.model, options.aliases ?? {});
      const model = findModel(catalog, id);
      if (!model) throw new UnknownModelError(id);
      wanted = `with model ${id}`;
      models = [model];
    } else {
      const tier = request.tier ?? 'MEDIUM';
      wanted = `in tier ${tier}`;
      models = tierModels(catalog, tier);
    }
    const refused: string[] = [];
    const usable = models.filter((model) => {
      const lacks = !model.available
        ? 'marked unavailable in the catalog'
        : request.tools?.length && !model.supports_tools
          ? 'does not support tools'
          : needs.streaming && !model.supports_streaming
            ? 'does not support streaming'
            : undefined;
      if (lacks) refused.push(`${model.id}: ${lacks}`);
      return !lacks;
    });
    if (models.length === 0) refused.push('the catalog lists no model there');
    return { wanted, models: usable, refused };
  }

  /** One round: each target once, in order, until one answers. */
  async function round<T>(wanted: string, targets: readonly Target[], refusedUpFront: string[], estimate: (target: Target) => number, call: (target: Target) => Promise<T>) {
    const reasons = [...refusedUpFront];
    let rateLimited = true;
    let soonest: number | undefined;
    let lastError: unknown;
    const refuse = (target: Target, refusal: Refusal) => {
      reasons.push(`${target.id}: ${refusal.reason}`);
      rateLimited &&= refusal.rateLimited;
      if (refusal.retryAfterMs !== undefined) soonest = Math.min(soonest ?? Infinity, refusal.retryAfterMs);
    };
    for (const target of targets) {
      const { guard } = providerOf(target.provider);
      const tokens = estimate(target);
      const refusal = await guard.admit(tokens);
      if (refusal) {
        refuse(target, refusal);
        continue;
      }
      try {
        return { target, guard, tokens, value: await guard.run(() => call(target)) };
      } catch (err) {
        if (isBrokenCircuitError(err)) {
          refuse(target, { reason: `provider ${target.provider} circuit is open`, rateLimited: false });
          continue;
        }
        if (!isRetryableModelError(err)) throw err;
        lastError = err;
        const retryAfterMs = retryAfterMsOf(err, now());
        if (retryAfterMs !== undefined) guard.coolDown(retryAfterMs);
        refuse(target, { reason: describeModelError(err), rateLimited: isRateLimitError(err), ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) });
      }
    }
    throw new ModelUnavailableError(wanted, reasons, rateLimited && reasons.length > refusedUpFront.length, soonest, { cause: lastError });
  }

  async function served<T>(request: ModelRequest, needs: { streaming?: boolean }, call: (model: CatalogModel) => Promise<T>) {
    const { wanted, models, refused } = candidatesFor(request, needs);
    const estimate = (target: Target) => {
      const provider = providerOf(target.provider).guard.provider;
      // Counting costs a tokenizer pass; only a tokens-per-minute limit needs it.
      if (provider.tokens_per_minute === 0) return 0;
      return countMessageTokens(request.messages, target.tokenizer ?? 'o200k_base', request.system) + (request.sampling?.maxTokens ?? 0);
    };
    const result = await retrying.execute(() => round(wanted, models, refused, estimate, (target) => call(target as CatalogModel)), request.signal);
    return { ...result, model: result.target as CatalogModel };
  }

  const servedBy = (model: CatalogModel, usage: TokenCounts): Served => ({
    model: model.id,
    provider: providerOf(model.provider).guard.provider.kind,
    tier: model.tier,
    costUsd: costOf(model, usage),
  });

  async function* withServed(deltas: AsyncGenerator<ChatDelta>, model: CatalogModel, settle: (usage: TokenCounts) => Promise<void>): AsyncGenerator<GatewayDelta> {
    for await (const delta of deltas) {
      if (delta.kind !== 'end') {
        yield delta;
        continue;
      }
      await settle(delta.usage);
      yield { ...delta, ...servedBy(model, delta.usage) };
    }
  }

  async function stream(request: ModelRequest): Promise<AsyncGenerator<GatewayDelta>> {
    const { model, guard, tokens, value } = await served(request, { streaming: true }, (target) =>
      providerOf(target.provider).chat.openStream({ ...request, model: target.id }),
    );
    return withServed(value, model, (usage) => guard.settleTokens(tokens, usage.totalTokens));
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

  return {
    catalog,

    async complete(request) {
      const { onPartial } = request;
      if (onPartial && candidatesFor(request, { streaming: true }).models.length > 0) return collect(await stream(request), onPartial);
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
        round(`embeddings with model ${id}`, [target], [], () => 0, () => providerOf(target.provider).embedder.embed(texts, id)),
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

