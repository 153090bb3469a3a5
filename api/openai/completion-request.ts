import type { OpenAiModel, OpenAiModelCatalog } from '../../core/openai/model-catalog';
import type { ClientTool } from '../../core/tasks/run/step-types';
import { chatToolAt, clientToolsOf, toolExchangeText, trailingToolResults, type ToolResult } from './client-tool-request';
import { invalid, modelNotFound } from './openai-errors';
import { shannonOptionsOf, type ShannonOptions } from './shannon-options';

// The bodies of POST /v1/chat/completions and POST /v1/completions, checked as OpenAI checks them,
// as what a Weft task needs: the query (the last user message, or the prompt), the system
// instructions, and the conversation before it.

export interface ConversationTurn {
  role: 'user' | 'assistant';
  content: string;
}

export interface CompletionRequest {
  /** The name the caller used (echoed back as `model`) and the task shape it names. */
  modelName: string;
  model: OpenAiModel;
  query: string;
  /** System and developer messages, joined: the agent's system prompt. */
  instructions?: string;
  /** The turns before the query, in order. */
  history: ConversationTurn[];
  stream: boolean;
  includeUsage: boolean;
  /** OpenAI's end-user id, checked as OpenAI checks it (a task keeps no labels). */
  user?: string;
  /** Tools the client declares and runs itself (client-tool-request.ts). */
  clientTools?: ClientTool[];
  /** Results of client tools the messages end with: they continue the task that called them. */
  toolResults?: ToolResult[];
  /** Shannon's extension of a chat completion (shannon-options.ts). */
  shannonOptions?: ShannonOptions;
}

const isNumber = (value: unknown) => typeof value === 'number';

/**
 * Sampling settings OpenAI clients send by default, with the type each must have. A Weft task's
 * model steps take theirs from the model catalog's tier, so these are checked for type and
 * otherwise not applied (docs/guides/openai-clients.md says so).
 */
const samplingTypes: Record<string, (value: unknown) => boolean> = {
  temperature: isNumber,
  top_p: isNumber,
  max_tokens: isNumber,
  max_completion_tokens: isNumber,
  presence_penalty: isNumber,
  frequency_penalty: isNumber,
  seed: isNumber,
  top_logprobs: isNumber,
  stop: (value) => typeof value === 'string' || (Array.isArray(value) && value.every((s) => typeof s === 'string')),
  logit_bias: (value) => typeof value === 'object',
  logprobs: (value) => typeof value === 'boolean' || typeof value === 'number',
};
const samplingFields = Object.keys(samplingTypes);
const sharedFields = ['model', 'stream', 'stream_options', 'n', 'user', ...samplingFields];
const chatFields = [...sharedFields, 'messages', 'tools', 'tool_choice', 'parallel_tool_calls', 'shannon_options'];
const completionFields = [...sharedFields, 'prompt', 'echo', 'suffix', 'best_of'];

/** Fields OpenAI has that Weft cannot honour: refused, so nobody relies on them silently. */
const unsupported: Record<string, string> = {
  functions: 'Weft runs tools itself; functions declared by the client are not supported',
  function_call: 'Weft runs tools itself; functions declared by the client are not supported',
  response_format: 'structured output is not supported yet',
  shannon_options: 'Shannon options are read on /v1/chat/completions only, as Shannon reads them',
};

/** The body as an object with only `fields` (or fields refused by name). */
export function objectBody(body: unknown, fields: readonly string[]): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalid('The request body must be a JSON object.', '');
  const request = body as Record<string, unknown>;
  for (const name of Object.keys(request)) {
    if (name in unsupported && !fields.includes(name)) throw invalid(`${name} is not supported by Weft: ${unsupported[name]}.`, name);
    if (!fields.includes(name)) throw invalid(`Unrecognized request argument supplied: ${name}`, name);
  }
  return request;
}

function checkSampling(request: Record<string, unknown>): void {
  for (const [name, hasType] of Object.entries(samplingTypes)) {
    const value = request[name];
    if (value !== undefined && value !== null && !hasType(value)) throw invalid(`Invalid type for '${name}'.`, name);
  }
  if (request.n !== undefined && request.n !== null && request.n !== 1) throw invalid('Weft answers one choice per request: n must be 1.', 'n');
}

export function modelOf(request: Record<string, unknown>, models: OpenAiModelCatalog): { modelName: string; model: OpenAiModel } {
  const given = request.model ?? '';
  if (typeof given !== 'string') throw invalid("Invalid type for 'model': expected a string.", 'model');
  const model = models.find(given);
  if (!model) throw modelNotFound(given);
  return { modelName: given || model.id, model };
}

function streamOptionsOf(request: Record<string, unknown>): { stream: boolean; includeUsage: boolean } {
  const { stream = false, stream_options: options } = request;
  if (typeof stream !== 'boolean') throw invalid("Invalid type for 'stream': expected a boolean.", 'stream');
  if (options === undefined || options === null) return { stream, includeUsage: false };
  if (!stream) throw invalid('stream_options is only allowed when stream is true.', 'stream_options');
  const includeUsage = (options as { include_usage?: unknown }).include_usage ?? false;
  if (typeof options !== 'object' || typeof includeUsage !== 'boolean')
    throw invalid("Invalid type for 'stream_options.include_usage': expected a boolean.", 'stream_options.include_usage');
  return { stream, includeUsage };
}

export function userOf(request: Record<string, unknown>): { user?: string } {
  if (request.user === undefined || request.user === null) return {};
  if (typeof request.user !== 'string' || request.user.length > 256) throw invalid("'user' must be a string of at most 256 characters.", 'user');
  return { user: request.user };
}

/** A message's text: a string, or an array of text parts. */
function contentText(content: unknown, param: string): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part: unknown, i) => {
        const { type, text } = (part ?? {}) as { type?: unknown; text?: unknown };
        if (type !== 'text' || typeof text !== 'string')
          throw invalid(`Weft reads text parts only: ${param}[${i}] must be {"type": "text", "text": "..."}.`, `${param}[${i}]`);
        return text;
      })
      .join('');
  }
  throw invalid(`Invalid type for '${param}': expected a string or an array of text parts.`, param);
}

type Conversation = Pick<CompletionRequest, 'query' | 'instructions' | 'history' | 'toolResults'>;

function conversationOf(messages: unknown): Conversation {
  if (!Array.isArray(messages) || messages.length === 0) throw invalid("'messages' must be a non-empty array of messages.", 'messages');
  const toolResults = trailingToolResults(messages as Array<Record<string, unknown>>, contentText);
  if (toolResults) return { query: '', history: [], toolResults };
  const system: string[] = [];
  const turns: ConversationTurn[] = [];
  messages.forEach((message: unknown, i) => {
    const { role, content, tool_calls: calls } = (message ?? {}) as { role?: unknown; content?: unknown; tool_calls?: unknown };
    // An assistant's tool calls may come without content.
    const text = calls !== undefined && (content === null || content === undefined) ? '' : contentText(content, `messages[${i}].content`);
    if (role === 'system' || role === 'developer') system.push(text);
    else if (role === 'user') turns.push({ role, content: text });
    else if (role === 'assistant' || role === 'tool') turns.push({ role: 'assistant', content: toolExchangeText(message as object, text) });
    else throw invalid(`Invalid value for 'messages[${i}].role': expected system, developer, user, assistant or tool.`, `messages[${i}].role`);
  });
  const last = turns.at(-1);
  if (last?.role !== 'user' || last.content.trim() === '')
    throw invalid('The last message (after any system messages) must be a user message with text.', 'messages');
  return { query: last.content, history: turns.slice(0, -1), ...(system.length > 0 ? { instructions: system.join('\n\n') } : {}) };
}

export function chatCompletionRequest(body: unknown, models: OpenAiModelCatalog): CompletionRequest {
  const request = objectBody(body, chatFields);
  checkSampling(request);
  return {
    ...modelOf(request, models),
    ...conversationOf(request.messages),
    ...streamOptionsOf(request),
    ...userOf(request),
    ...clientToolsOf(request, chatToolAt),
    ...shannonOptionsOf(request),
  };
}

export function completionRequest(body: unknown, models: OpenAiModelCatalog): CompletionRequest {
  const request = objectBody(body, completionFields);
  checkSampling(request);
  const { prompt } = request;
  const text = Array.isArray(prompt) && prompt.length === 1 ? prompt[0] : prompt;
  if (typeof text !== 'string' || text.trim() === '') throw invalid("'prompt' must be a non-empty string (or an array of one).", 'prompt');
  if (request.echo === true || (request.best_of !== undefined && request.best_of !== 1) || request.suffix !== undefined) {
    throw invalid(
      'Weft answers a prompt once: echo, suffix and best_of other than 1 are not supported.',
      request.echo === true ? 'echo' : request.suffix !== undefined ? 'suffix' : 'best_of',
    );
  }
  return { ...modelOf(request, models), query: text, history: [], ...streamOptionsOf(request), ...userOf(request) };
}
