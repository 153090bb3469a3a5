import type { ServerWritableStream } from '@grpc/grpc-js';
import { authenticateCall } from '../callers';
import type { TokenCounts } from '../../../core/llm/chat-model';
import type { ModelRequest, Served } from '../../../core/llm/gateway';
import { answerWithCache, cacheKeyOf } from '../../../core/llm/response-cache';
import { recordGatewayUsage, reserveGatewayUsage, settleGatewayUsage } from '../../../core/llm/usage-records';
import { messageTokensAtMost } from '../../../core/llm/tokenizer';
import type { Principal } from '../../../core/auth/api-keys';
import type { TaskMetadata__Output } from '../../../protos/generated/shannon/common/TaskMetadata';
import { textOf } from '../../../core/transcript';
import type { GenerateCompletionRequest__Output } from '../../../protos/generated/shannon/llm/GenerateCompletionRequest';
import type { CompletionChunk } from '../../../protos/generated/shannon/llm/CompletionChunk';
import type { LLMServiceHandlers } from '../../../protos/generated/shannon/llm/LLMService';
import type { TokenUsage } from '../../../protos/generated/shannon/common/TokenUsage';
import { invalid } from '../../tasks/task-errors';
import { actingUser } from '../../tasks/acting-user';
import { conversationOf, parseArguments, samplingOf, toolCallMessage } from './llm-messages';
import { structToJson } from '../struct';
import { modelTierOf } from '../model-tiers';
import { authorized, send, serverStream } from '../unary';
import type { Pool } from 'pg';
import type { ModelGateway } from '../../../core/llm/gateway';
import type { Authenticator } from '../../tasks/auth';

const usageOf = (served: Served, usage: TokenCounts): TokenUsage => ({
  prompt_tokens: usage.promptTokens,
  completion_tokens: usage.completionTokens,
  total_tokens: usage.totalTokens,
  cost_usd: served.costUsd,
  model: served.model,
  tier: `MODEL_TIER_${served.tier}`,
});

/** The request in the gateway's terms: a specific model (or alias) when named, else the tier. */
function modelRequest(request: GenerateCompletionRequest__Output): ModelRequest {
  const conversation = conversationOf(request.messages);
  const tools = request.available_tools.map((tool) => {
    if (!tool.name) throw invalid('available_tools[].name is required');
    return { name: tool.name, description: tool.description, parameters: structToJson(tool.parameters) };
  });
  return {
    ...(request.specific_model ? { model: request.specific_model } : { tier: modelTierOf(request.tier) }),
    messages: conversation.messages,
    ...(conversation.system ? { system: conversation.system } : {}),
    tools,
    sampling: samplingOf(request.config),
  };
}

export interface CompletionDeps {
  auth: Authenticator;
  pool: Pool;
  /** How long a cached answer (enable_caching) is served. */
  cacheTtlSeconds: number;
  gateway: ModelGateway;
}

/** GenerateCompletion and StreamCompletion: one model call through the gateway, metered against the caller. */
export function completionHandlers(deps: CompletionDeps): Pick<LLMServiceHandlers, 'GenerateCompletion' | 'StreamCompletion'> {
  /**
   * Whom a call is metered against: the caller's tenant and the user, session and task its metadata
   * names, checked before the model is called (ids were bounded when the request was decoded) so
   * that every answer can be recorded.
   */
  const meterFor = (principal: Principal, metadata: TaskMetadata__Output | null) => ({
    tenantId: principal.tenantId,
    userId: actingUser(principal, metadata?.user_id, 'metadata.user_id').userId,
    sessionId: metadata?.session_id ?? '',
    taskId: metadata?.task_id ?? '',
  });
  const recordUsage = (meter: ReturnType<typeof meterFor>, served: Served & { usage: TokenCounts }, cacheHit: boolean) =>
    recordGatewayUsage(deps.pool, {
      ...meter,
      model: served.model,
      provider: served.provider,
      ...served.usage,
      costUsd: served.costUsd,
      cacheHit,
      at: new Date(),
    });

  const streamCompletion = async (call: ServerWritableStream<GenerateCompletionRequest__Output, CompletionChunk>) => {
    const principal = await authenticateCall(deps.auth, call.metadata);
    const meter = meterFor(principal, call.request.metadata);
    const request = modelRequest(call.request);
    // Reserved before the first token goes out, so an answer is metered even if its end is never recorded.
    const promptTokens = messageTokensAtMost(request.messages, request.system);
    const reservation = await reserveGatewayUsage(deps.pool, {
      ...meter,
      model: request.model ?? `tier:${request.tier}`,
      provider: '',
      promptTokens,
      completionTokens: 0,
      totalTokens: promptTokens,
      costUsd: 0,
      cacheHit: false,
      at: new Date(),
    });
    const abandoned = new AbortController();
    call.on('cancelled', () => abandoned.abort());
    for await (const delta of await deps.gateway.stream({ ...request, signal: abandoned.signal })) {
      // CompletionChunk has no place for reasoning.
      if (delta.kind === 'thinking') continue;
      if (delta.kind === 'end')
        await settleGatewayUsage(deps.pool, reservation, { model: delta.model, provider: delta.provider, ...delta.usage, costUsd: delta.costUsd });
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
      const meter = meterFor(principal, request.metadata);
      const chat = modelRequest(request);
      // enable_caching: an identical earlier request (or the same cache_key) of the tenant answers,
      // spending nothing; only complete answers are stored.
      const key = request.config?.enable_caching ? cacheKeyOf(chat, request.config.cache_key) : undefined;
      const cache = { tenantId: principal.tenantId, key, ttlSeconds: deps.cacheTtlSeconds };
      const { completion, cacheHit, remember } = await answerWithCache(deps.pool, cache, () => deps.gateway.complete(chat));
      await remember(deps.pool);
      await recordUsage(meter, completion, cacheHit);
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
  };
}
