import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import o200k from 'js-tiktoken/ranks/o200k_base';
import type { Message } from '../transcript';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { toChatMessage } from './chat-encoding';

// Token counts with the BPE tokenizer of a model family (OpenAI's tiktoken encodings, bundled, no
// download): o200k_base for GPT-4o and later, cl100k_base for GPT-4/3.5 and a close estimate for
// most open models. History compression and per-provider token limits count with it.

export const tokenizers = ['o200k_base', 'cl100k_base'] as const;
export type TokenizerName = (typeof tokenizers)[number];

const ranks = { o200k_base: o200k, cl100k_base: cl100k };
const encoders = new Map<TokenizerName, Tiktoken>();

function encoderFor(name: TokenizerName): Tiktoken {
  let encoder = encoders.get(name);
  if (!encoder) {
    encoder = new Tiktoken(ranks[name]);
    encoders.set(name, encoder);
  }
  return encoder;
}

export function countTextTokens(text: string, tokenizer: TokenizerName): number {
  return encoderFor(tokenizer).encode(text).length;
}

// OpenAI's documented chat overhead: each message costs 3 tokens of framing, the reply's priming 3.
const perMessageTokens = 3;
const replyPrimingTokens = 3;

type Measure = TokenizerName | 'bytes';

/** What a chat message's strings weigh: tokens of a tokenizer, or bytes (a bound on any tokenizer's count). */
function weigh(message: ChatCompletionMessageParam, measure: Measure): number {
  return textsOf(message).reduce((sum, text) => sum + (measure === 'bytes' ? Buffer.byteLength(text) : countTextTokens(text, measure)), perMessageTokens);
}

// A transcript grows by a few messages a step and its messages are never changed once made, so
// each message is weighed once: counting a long transcript again costs only its new messages.
const weighed = new WeakMap<Message, Partial<Record<Measure, number>>>();

function weightOf(message: Message, index: number, measure: Measure): number {
  const known = weighed.get(message) ?? {};
  known[measure] ??= toChatMessage(message, index).reduce((sum, chat) => sum + weigh(chat, measure), 0);
  weighed.set(message, known);
  return known[measure];
}

function total(messages: readonly Message[], measure: Measure, system?: string): number {
  const framing = system ? weigh({ role: 'system', content: system }, measure) : 0;
  return messages.reduce((sum, message, index) => sum + weightOf(message, index, measure), replyPrimingTokens + framing);
}

/** Prompt tokens of messages as the chat format sends them (role, content, tool calls, tool results). */
export const countMessageTokens = (messages: readonly Message[], tokenizer: TokenizerName, system?: string): number => total(messages, tokenizer, system);

/**
 * A bound no tokenizer can exceed (a BPE token is at least one byte), without a tokenizer pass:
 * below a limit, counting can be skipped.
 */
export const messageTokensAtMost = (messages: readonly Message[], system?: string): number => total(messages, 'bytes', system);

/** The strings of a chat message the model reads: its role, content, tool calls and tool call id. */
function textsOf(message: ChatCompletionMessageParam): string[] {
  const texts: string[] = [message.role];
  const { content } = message;
  if (typeof content === 'string') texts.push(content);
  else for (const part of content ?? []) texts.push(part.type === 'text' ? part.text : JSON.stringify(part));
  if (message.role === 'assistant') {
    for (const call of message.tool_calls ?? []) if (call.type === 'function') texts.push(call.function.name, call.function.arguments);
  }
  if (message.role === 'tool') texts.push(message.tool_call_id);
  return texts;
}
