import OpenAI from 'openai';
import type { ToolMetadata } from '../tools/tool';
import { validateTranscript, type Message } from '../transcript';
import { fromChatMessage, reasoningOf, toChatMessages } from './chat-encoding';

export interface TokenCounts {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** Prompt tokens the provider served from its prompt cache, when it reports them. */
  cachedPromptTokens?: number;
  /** The provider reported no usage: Weft counted the call itself (usage-estimate.ts). */
  estimated?: boolean;
}

export interface ChatCompletion {
  message: Message;
  model: string;
  finishReason: string;
  usage: TokenCounts;
}

export interface ChatModelOptions {
  baseURL?: string;
  apiKey: string;
  timeoutMs: number;
}

/** Generation settings a caller may set; the provider's defaults apply to the rest. */
export interface Sampling {
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  stop?: string[];
  presencePenalty?: number;
  frequencyPenalty?: number;
}

export interface ChatRequest {
  model: string;
  messages: readonly Message[];
  /** Instructions sent as the system message; not part of the transcript. */
  system?: string;
  tools?: readonly Pick<ToolMetadata, 'name' | 'description' | 'parameters'>[];
  sampling?: Sampling;
  signal?: AbortSignal;
  /** The answer must be JSON of this schema (OpenAI's response_format json_schema). */
  responseFormat?: { name: string; schema: Record<string, unknown> };
}

/** A streamed reply: reasoning and text as they come, each tool call once its arguments are complete, then the end. */
export type ChatDelta =
  | { kind: 'thinking'; text: string }
  | { kind: 'text'; text: string }
  | { kind: 'tool_call'; id: string; name: string; arguments: string }
  | { kind: 'end'; finishReason: string; usage: TokenCounts; model: string };

export interface ChatModel {
  complete(request: ChatRequest): Promise<ChatCompletion>;
  /** Resolves once the provider has accepted the request (so its refusal is an error here), then streams. */
  openStream(request: ChatRequest): Promise<AsyncGenerator<ChatDelta>>;
}

/** The official `openai` client for one endpoint; its own retries are off (callers decide). */
export function openAiClient(options: ChatModelOptions): OpenAI {
  return new OpenAI({
    apiKey: options.apiKey,
    ...(options.baseURL ? { baseURL: options.baseURL } : {}),
    timeout: options.timeoutMs,
    maxRetries: 0,
  });
}

function requestBody({ model, messages, system, tools, sampling, responseFormat }: ChatRequest) {
  // An invalid transcript never reaches a provider.
  validateTranscript(messages);
  return {
    model,
    messages: toChatMessages(messages, system),
    ...(tools && tools.length > 0
      ? {
          tools: tools.map((tool) => ({
            type: 'function' as const,
            function: { name: tool.name, description: tool.description, parameters: tool.parameters },
          })),
        }
      : {}),
    ...(sampling?.temperature !== undefined ? { temperature: sampling.temperature } : {}),
    ...(sampling?.topP !== undefined ? { top_p: sampling.topP } : {}),
    ...(sampling?.maxTokens !== undefined ? { max_tokens: sampling.maxTokens } : {}),
    ...(sampling?.stop?.length ? { stop: sampling.stop } : {}),
    ...(sampling?.presencePenalty !== undefined ? { presence_penalty: sampling.presencePenalty } : {}),
    ...(sampling?.frequencyPenalty !== undefined ? { frequency_penalty: sampling.frequencyPenalty } : {}),
    // Not strict: OpenAI's strict mode refuses schemas with optional fields, which plans have.
    ...(responseFormat ? { response_format: { type: 'json_schema' as const, json_schema: { ...responseFormat, strict: false } } } : {}),
  };
}

function countsOf(usage: OpenAI.CompletionUsage | null | undefined): TokenCounts {
  const cached = usage?.prompt_tokens_details?.cached_tokens;
  return {
    promptTokens: usage?.prompt_tokens ?? 0,
    completionTokens: usage?.completion_tokens ?? 0,
    totalTokens: usage?.total_tokens ?? 0,
    ...(cached ? { cachedPromptTokens: cached } : {}),
  };
}

/** Text deltas as they come, each tool call once its fragments are whole, then the end. */
async function* deltasOf(stream: AsyncIterable<OpenAI.ChatCompletionChunk>, requestedModel: string): AsyncGenerator<ChatDelta> {
  // Tool calls arrive as fragments keyed by index.
  const calls = new Map<number, { id: string; name: string; arguments: string }>();
  let finishReason = '';
  let usage: TokenCounts = countsOf(undefined);
  let model = requestedModel;
  for await (const chunk of stream) {
    model = chunk.model || model;
    if (chunk.usage) usage = countsOf(chunk.usage);
    const choice = chunk.choices[0];
    if (!choice) continue;
    const reasoning = reasoningOf(choice.delta);
    if (reasoning) yield { kind: 'thinking', text: reasoning };
    if (choice.delta.content) yield { kind: 'text', text: choice.delta.content };
    for (const fragment of choice.delta.tool_calls ?? []) {
      const call = calls.get(fragment.index) ?? { id: '', name: '', arguments: '' };
      call.id ||= fragment.id ?? '';
      call.name ||= fragment.function?.name ?? '';
      call.arguments += fragment.function?.arguments ?? '';
      calls.set(fragment.index, call);
    }
    if (choice.finish_reason) finishReason = choice.finish_reason;
  }
  for (const [, call] of [...calls].sort(([a], [b]) => a - b)) yield { kind: 'tool_call', ...call };
  yield { kind: 'end', finishReason, usage, model };
}

/**
 * A chat model behind any OpenAI-compatible endpoint, through the official `openai` client. The
 * client's own retries are off: the model gateway retries and falls back across providers.
 */
export function createChatModel(options: ChatModelOptions): ChatModel {
  const client = openAiClient(options);
  return {
    async complete(request) {
      const response = await client.chat.completions.create(requestBody(request), { signal: request.signal });
      const choice = response.choices[0];
      if (!choice) throw new Error(`model ${request.model} returned no choices`);
      return { message: fromChatMessage(choice.message), model: response.model, finishReason: choice.finish_reason, usage: countsOf(response.usage) };
    },

    async openStream(request) {
      const stream = await client.chat.completions.create(
        { ...requestBody(request), stream: true, stream_options: { include_usage: true } },
        { signal: request.signal },
      );
      return deltasOf(stream, request.model);
    },
  };
}
