import OpenAI from 'openai';
import type { ToolMetadata } from '../tools/tool';
import { validateTranscript, type Message } from '../transcript';
import { fromChatMessage, toChatMessages } from './chat-encoding';

export interface TokenCounts {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
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

export interface ChatRequest {
  model: string;
  messages: readonly Message[];
  /** Instructions sent as the system message; not part of the transcript. */
  system?: string;
  tools?: readonly ToolMetadata[];
  signal?: AbortSignal;
}

export interface ChatModel {
  complete(request: ChatRequest): Promise<ChatCompletion>;
}

/**
 * A chat model behind any OpenAI-compatible endpoint, through the official `openai` client.
 * The client's own retries are off: Temporal retries the activity, with its own backoff and limits.
 */
export function createChatModel(options: ChatModelOptions): ChatModel {
  const client = new OpenAI({
    apiKey: options.apiKey,
    ...(options.baseURL ? { baseURL: options.baseURL } : {}),
    timeout: options.timeoutMs,
    maxRetries: 0,
  });
  return {
    async complete({ model, messages, system, tools, signal }) {
      // An invalid transcript never reaches a provider.
      validateTranscript(messages);
      const response = await client.chat.completions.create(
        {
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
        },
        { signal },
      );
      const choice = response.choices[0];
      if (!choice) throw new Error(`model ${model} returned no choices`);
      return {
        message: fromChatMessage(choice.message),
        model: response.model,
        finishReason: choice.finish_reason,
        usage: {
          promptTokens: response.usage?.prompt_tokens ?? 0,
          completionTokens: response.usage?.completion_tokens ?? 0,
          totalTokens: response.usage?.total_tokens ?? 0,
        },
      };
    },
  };
}

/** Provider errors a retry cannot fix: bad requests, auth, unknown model. 408, 409 and 429 can heal. */
export function isPermanentModelError(err: unknown): boolean {
  if (!(err instanceof OpenAI.APIError) || err.status === undefined) return false;
  return err.status >= 400 && err.status < 500 && ![408, 409, 429].includes(err.status);
}

/** Any failure of the provider call itself (refused, unreachable, timed out), as opposed to Weft's own errors. */
export function isModelFailure(err: unknown): boolean {
  return err instanceof OpenAI.APIError;
}
