import type { ServerWritableStream } from '@grpc/grpc-js';
import type { Pool } from 'pg';
import type { TokenCounts } from '../../core/llm/chat-model';
import type { ModelGateway, ModelRequest, Served } from '../../core/llm/gateway';
import { answerWithCache, cacheKeyOf } from '../../core/llm/response-cache';
import { recordGatewayUsage } from '../../core/llm/usage-records';
import type { Principal } from '../../core/auth/api-keys';
import type { TaskMetadata__Output } from '../../protos/generated/shannon/common/TaskMetadata';
import { decideComplexity, heuristicComplexity } from '../../core/orchestration/complexity';
import { modelTiers } from '../../core/orchestration/plan';
import type { ToolRegistry } from '../../core/tools/registry';
import { textOf, userText } from '../../core/transcript';
import type { GenerateCompletionRequest__Output } from '../../protos/generated/shannon/llm/GenerateCompletionRequest';
import type { CompletionChunk } from '../../protos/generated/shannon/llm/CompletionChunk';
import type { LLMServiceHandlers } from '../../protos/generated/shannon/llm/LLMService';
import type { TokenUsage } from '../../protos/generated/shannon/common/TokenUsage';
import type { Authenticator } from '../grpc/auth';
import { invalidArgument } from '../grpc/grpc-errors';
import { conversationOf, parseArguments, samplingOf, toolCallMessage } from './llm-messages';
import { structToJson } from '../grpc/struct';
import { modelTierOf } from './model-tiers';
import { authorized, send, serverStream } from '../grpc/unary';

// LLMService (seed 000): the model gateway as a gRPC service, on its own port.

export interface LlmDeps {
  auth: Authenticator;
  pool: Pool;
  /** How long a cached answer (enable_caching) is served. */
  cacheTtlSeconds: number;
  gateway: ModelGateway;
  tools: ToolRegistry;
}

const maxEmbedTexts = 256;

export function createLlmService(deps: LlmDeps): LLMServiceHandlers {
  const usageOf = (served: Served, usage: TokenCounts): TokenUsage => ({
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.totalTokens,
    cost_usd: served.costUsd,
    model: served.model,
    tier: `MODEL_TIER_${served.tier}`,
  });

  /** What a call spent, against the caller's tenant and the user, session and task its metadata names. */
  const recordUsage = (principal: Principal, metadata: TaskMetadata__Output | null, served: Served & { usage: TokenCounts }, cacheHit: boolean) =>
    recordGatewayUsage(deps.pool, {
      tenantId: principal.tenantId,
      userId: metadata?.user_id || principal.userId,
      sessionId: metadata?.session_id ?? '',
      taskId: metadata?.task_id ?? '',
      model: served.model,
      provider: served.provider,
      ...served.usage,
      costUsd: served.costUsd,
      cacheHit,
      at: new Date(),
    });

  /** The request in the gateway's terms: a specific model (or alias) when named, else the tier. */
  const modelRequest = (request: GenerateCompletionRequest__Output): ModelRequest => {
    const conversation = conversationOf(request.messages);
    const tools = request.available_tools.map((tool) => {
      if (!tool.name) throw invalidArgument('available_tools[].name is required');
      return { name: tool.name, description: tool.description, parameters: structToJson(tool.parameters) };
    });
    return {
      ...(request.specific_model ? { model: request.specific_model } : { tier: modelTierOf(request.tier) }),
      messages: conversation.messages,
      ...(conversation.system ? { system: conversation.system } : {}),
      tools,
      sampling: samplingOf(request.config),
    };
  };

  const streamCompletion = async (call: ServerWritableStream<GenerateCompletionRequest__Output, CompletionChunk>) => {
    const principal = await deps.auth.authenticate(call.metadata);
    const abandoned = new AbortController();
    call.on('cancelled', () => abandoned.abort());
    for await (const delta of await deps.gateway.stream({ ...modelRequest(call.request), signal: abandoned.signal })) {
      // CompletionChunk has no place for reasoning.
      if (delta.kind === 'thinking') continue;
      if (delta.kind === 'end') await recordUsage(principal, call.request.metadata, delta, false);
      const chunk: CompletionChunk =
        delta.kind === 'text'
          ? { delta: delta.text }
          : delta.kind === 'tool_call'
            ? { tool_call_delta: toolCallMessage(delta.id, delta.name, parseArguments(delta.arguments)) }
            : { finish_reason: delta.finishReason, usage: usageOf(delta, delta.usage) };
      await send(call, chunk);
    }
  };

  return {
    GenerateCompletion: authorized(deps.auth, async (request, principal) => {
      const chat = modelRequest(request);
      // enable_caching: an identical earlier request (or the same cache_key) of the tenant answers,
      // spending nothing; only complete answers are stored.
      const key = request.config?.enable_caching ? cacheKeyOf(chat, request.config.cache_key) : undefined;
      const cache = { tenantId: principal.tenantId, key, ttlSeconds: deps.cacheTtlSeconds };
      const { completion, cacheHit, remember } = await answerWithCache(deps.pool, cache, () => deps.gateway.complete(chat));
      await remember(deps.pool);
      await recordUsage(principal, request.metadata, completion, cacheHit);
      return {
        completion: textOf(completion.message),
        tool_calls: completion.message.parts.flatMap((p) => (p.kind === 'tool_use' ? [toolCallMessage(p.id, p.name, p.input)] : [])),
        usage: usageOf(completion, completion.usage),
        model_used: completion.model,
        provider: `PROVIDER_${completion.provider}`,
        cache_hit: cacheHit,
        finish_reason: completion.finishReason,
      };
    }),

    StreamCompletion: serverStream(streamCompletion),

    EmbedText: authorized(deps.auth, async (request) => {
      if (request.texts.length === 0) throw invalidArgument('texts must not be empty');
      if (request.texts.length > maxEmbedTexts) throw invalidArgument(`texts takes at most ${maxEmbedTexts} items`);
      const empty = request.texts.findIndex((text) => text === '');
      if (empty >= 0) throw invalidArgument(`texts[${empty}] is empty`);
      const { vectors, model } = await deps.gateway.embed(request.texts, request.model || undefined);
      return {
        embeddings: vectors.map((vector, i) => ({ vector, text: request.texts[i]! })),
        dimensions: vectors[0]?.length ?? 0,
        model_used: model,
      };
    }),

    AnalyzeComplexity: authorized(deps.auth, async (request) => {
      if (!request.query.trim()) throw invalidArgument('query is required');
      const tools = request.available_tools.length > 0 ? request.available_tools : deps.tools.list().map((t) => t.name);
      const medium = deps.gateway.firstChoice('MEDIUM');
      const heuristic = heuristicComplexity(request.query, 1500, medium ? (medium.prompt_per_1k + medium.completion_per_1k) / 2 : 0);
      const verdict = await decideComplexity(heuristic, request.query, tools, (prompt) =>
        deps.gateway.complete({ tier: 'SMALL', messages: [userText(prompt)] }).then((reply) => textOf(reply.message)),
      );
      return {
        recommended_mode: `EXECUTION_MODE_${verdict.recommended_mode}`,
        complexity_score: verdict.complexity_score,
        required_capabilities: verdict.required_capabilities,
        estimated_agents: verdict.estimated_agents,
        estimated_tokens: verdict.estimated_tokens,
        estimated_cost_usd: verdict.estimated_cost_usd,
        reasoning: verdict.reasoning,
      };
    }),

    ListModels: authorized(deps.auth, async (request) => {
      const tier = request.tier === 'MODEL_TIER_UNSPECIFIED' ? undefined : modelTierOf(request.tier);
      const provider = request.provider === 'PROVIDER_UNSPECIFIED' ? undefined : request.provider.replace('PROVIDER_', '');
      const { catalog } = deps.gateway;
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
              available: model.available && deps.gateway.breakerState(model.provider) !== 'open',
            })),
        ),
      };
    }),
  };
}
