import type { Sampling } from '../../../core/llm/chat-model';
import type { Message, Part } from '../../../core/transcript';
import type { GenerationConfig__Output } from '../../../protos/generated/shannon/llm/GenerationConfig';
import type { Message__Output } from '../../../protos/generated/shannon/llm/Message';
import type { ToolCall } from '../../../protos/generated/shannon/common/ToolCall';
import { invalid } from '../../tasks/task-errors';
import { jsonToStruct, structToJson } from '../struct';

// LLMService's chat messages <-> Weft's transcript. A `tool` message answers the tool call whose
// tool_id is in its `name`; consecutive tool messages become one user turn of tool results.

export interface Conversation {
  system?: string;
  messages: Message[];
}

export function conversationOf(messages: readonly Message__Output[]): Conversation {
  if (messages.length === 0) throw invalid('messages must not be empty');
  const system: string[] = [];
  const out: Message[] = [];
  messages.forEach((message, index) => {
    switch (message.role) {
      case 'system':
        system.push(message.content);
        return;
      case 'user':
        out.push({ role: 'user', parts: [{ kind: 'text', text: message.content }] });
        return;
      case 'assistant': {
        const parts: Part[] = message.content ? [{ kind: 'text', text: message.content }] : [];
        for (const call of message.tool_calls) parts.push({ kind: 'tool_use', id: call.tool_id, name: call.name, input: structToJson(call.parameters) });
        out.push({ role: 'assistant', parts: parts.length > 0 ? parts : [{ kind: 'text', text: '' }] });
        return;
      }
      case 'tool': {
        const result: Part = { kind: 'tool_result', toolUseId: message.name, content: message.content };
        const previous = out.at(-1);
        if (previous?.role === 'user' && previous.parts.every((p) => p.kind === 'tool_result')) previous.parts.push(result);
        else out.push({ role: 'user', parts: [result] });
        return;
      }
      default:
        throw invalid(`messages[${index}].role must be system, user, assistant or tool, got "${message.role}"`);
    }
  });
  return { ...(system.length > 0 ? { system: system.join('\n\n') } : {}), messages: out };
}

function inRange(value: number, field: string, min: number, max: number): number {
  if (!Number.isFinite(value) || value < min || value > max) throw invalid(`config.${field} must be between ${min} and ${max}`);
  return value;
}

/** The caller's generation settings; zero values mean "the provider's default", as proto3 cannot tell unset from 0. */
export function samplingOf(config: GenerationConfig__Output | null): Sampling {
  if (!config) return {};
  if (config.max_tokens < 0) throw invalid('config.max_tokens must be >= 0');
  if (config.stop_sequences.length > 4) throw invalid('config.stop_sequences takes at most 4 sequences');
  return {
    ...(config.temperature ? { temperature: inRange(config.temperature, 'temperature', 0, 2) } : {}),
    ...(config.top_p ? { topP: inRange(config.top_p, 'top_p', 0, 1) } : {}),
    ...(config.max_tokens ? { maxTokens: config.max_tokens } : {}),
    ...(config.stop_sequences.length > 0 ? { stop: config.stop_sequences } : {}),
    ...(config.presence_penalty ? { presencePenalty: inRange(config.presence_penalty, 'presence_penalty', -2, 2) } : {}),
    ...(config.frequency_penalty ? { frequencyPenalty: inRange(config.frequency_penalty, 'frequency_penalty', -2, 2) } : {}),
  };
}

/** A tool call as the seed's ToolCall; arguments that are not JSON travel as `_unparsed_arguments`. */
export function toolCallMessage(id: string, name: string, input: unknown): ToolCall {
  const parameters = typeof input === 'object' && input !== null && !Array.isArray(input) ? input : { value: input };
  return { tool_id: id, name, parameters: jsonToStruct(parameters as Record<string, unknown>) };
}

export function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text || '{}');
  } catch {
    return { _unparsed_arguments: text };
  }
}
