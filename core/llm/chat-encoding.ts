import type { ChatCompletionContentPart, ChatCompletionMessage, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { TranscriptError, type Message, type Part } from '../transcript';

// Weft's transcript <-> OpenAI chat format, part order preserved. Thinking, citations and cache
// checkpoints stay in the transcript for audit and replay; the chat format has no place for them.

function userContent(parts: Part[]): ChatCompletionContentPart[] {
  return parts.flatMap((part): ChatCompletionContentPart[] => {
    if (part.kind === 'text') return [{ type: 'text', text: part.text }];
    if (part.kind === 'image') {
      const url = part.url ?? `data:${part.mediaType ?? 'image/png'};base64,${part.data ?? ''}`;
      return [{ type: 'image_url', image_url: { url } }];
    }
    if (part.kind === 'document') return [{ type: 'text', text: part.text ?? (part.chunks ?? []).join('\n') }];
    return [];
  });
}

const asString = (content: unknown) => (typeof content === 'string' ? content : JSON.stringify(content));

/**
 * The chat format wants tool results right after the assistant's calls, as separate messages; a user
 * message that put other parts before its tool results could only be sent reordered, so it is refused.
 */
function checkToolResultsFirst(message: Message, index: number): void {
  const firstOther = message.parts.findIndex((p) => p.kind !== 'tool_result');
  if (firstOther !== -1 && message.parts.slice(firstOther).some((p) => p.kind === 'tool_result')) {
    throw new TranscriptError(`message ${index}: tool results must come before the message's other parts`);
  }
}

/** One transcript message in the chat format: an assistant turn, or a user turn's tool results and then its other parts. */
export function toChatMessage(message: Message, index: number): ChatCompletionMessageParam[] {
  if (message.role === 'assistant') {
    const text = message.parts.flatMap((p) => (p.kind === 'text' ? [p.text] : [])).join('');
    const calls = message.parts.flatMap((p) =>
      p.kind === 'tool_use' ? [{ id: p.id, type: 'function' as const, function: { name: p.name, arguments: JSON.stringify(p.input ?? {}) } }] : [],
    );
    return [{ role: 'assistant', content: text || null, ...(calls.length > 0 ? { tool_calls: calls } : {}) }];
  }
  checkToolResultsFirst(message, index);
  const out: ChatCompletionMessageParam[] = message.parts.flatMap((part) =>
    part.kind === 'tool_result' ? [{ role: 'tool' as const, tool_call_id: part.toolUseId, content: asString(part.content) }] : [],
  );
  const content = userContent(message.parts);
  if (content.length === 0) return out;
  const onlyText = content.every((c) => c.type === 'text');
  out.push({ role: 'user', content: onlyText ? content.map((c) => (c as { text: string }).text).join('') : content });
  return out;
}

export function toChatMessages(messages: readonly Message[], system?: string): ChatCompletionMessageParam[] {
  const framing: ChatCompletionMessageParam[] = system ? [{ role: 'system', content: system }] : [];
  return [...framing, ...messages.flatMap((message, index) => toChatMessage(message, index))];
}

/**
 * Reasoning some OpenAI-compatible servers return beside the content: `reasoning_content` (DeepSeek,
 * vLLM, Qwen) or `reasoning` (Ollama, OpenRouter).
 */
export function reasoningOf(reply: object): string | undefined {
  const extended = reply as { reasoning_content?: unknown; reasoning?: unknown };
  const reasoning = extended.reasoning_content ?? extended.reasoning;
  return typeof reasoning === 'string' && reasoning !== '' ? reasoning : undefined;
}

export interface AssistantReply {
  reasoning?: string;
  content?: string | null;
  toolCalls: ReadonlyArray<{ id: string; name: string; arguments: string }>;
}

/** The assistant's reply as a transcript message: its reasoning, its text, then its tool calls, in order. */
export function assistantMessage(reply: AssistantReply): Message {
  const parts: Part[] = [];
  if (reply.reasoning) parts.push({ kind: 'thinking', text: reply.reasoning });
  if (reply.content) parts.push({ kind: 'text', text: reply.content });
  for (const call of reply.toolCalls) {
    let input: unknown;
    try {
      input = JSON.parse(call.arguments || '{}');
    } catch {
      input = { _unparsed_arguments: call.arguments };
    }
    parts.push({ kind: 'tool_use', id: call.id, name: call.name, input });
  }
  if (parts.length === 0) parts.push({ kind: 'text', text: '' });
  return { role: 'assistant', parts };
}

export function fromChatMessage(reply: ChatCompletionMessage): Message {
  const toolCalls = (reply.tool_calls ?? []).flatMap((call) => (call.type === 'function' ? [{ id: call.id, ...call.function }] : []));
  return assistantMessage({ reasoning: reasoningOf(reply), content: reply.content, toolCalls });
}
