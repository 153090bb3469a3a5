import type { OpenAiModel, OpenAiModelCatalog } from '../../../core/openai/model-catalog';
import type { ClientTool } from '../../../core/tasks/run/client-tools';
import { callOfClientId, clientToolsOf, declaredTool, type ToolResult } from '../client-tool-request';
import { modelOf, objectBody, userOf, type ConversationTurn } from '../completion-request';
import { invalid } from '../openai-errors';

// The body of POST /v1/responses, checked as OpenAI checks it, as what a Weft task needs: the query
// (the last user message of `input`), the instructions, the turns before it, the function tools
// the client runs itself, and how the caller wants the answer (streamed, in the background, after
// an earlier response). An input of function_call_output items instead gives the outputs of the
// calls the previous response ended with: its task goes on with them.

export interface ResponseRequest {
  /** The name the caller used (echoed back as `model`) and the task shape it names. */
  modelName: string;
  model: OpenAiModel;
  query: string;
  /** `instructions`, then the input's system and developer messages: the agent's system prompt. */
  instructions?: string;
  /** The input's turns before the query, in order. */
  history: ConversationTurn[];
  stream: boolean;
  /** Answered at once with the response queued; the task goes on whoever is listening. */
  background: boolean;
  /** The response whose conversation this one continues. */
  previousResponseId?: string;
  metadata: Record<string, string>;
  user?: string;
  /** Tools the client declares and runs itself (function tools). */
  clientTools?: ClientTool[];
  /** The outputs of the previous response's function calls: its task goes on (query and history are then empty). */
  toolOutputs?: ToolResult[];
}

const isNumber = (value: unknown) => typeof value === 'number';
const isBoolean = (value: unknown) => typeof value === 'boolean';
const isString = (value: unknown) => typeof value === 'string';

/**
 * Settings OpenAI clients may send, with the type each must have. A Weft task's model steps take
 * theirs from the model catalog's tier, so these are checked for type and otherwise not applied.
 */
const settingTypes: Record<string, (value: unknown) => boolean> = {
  temperature: isNumber,
  top_p: isNumber,
  max_output_tokens: isNumber,
  max_tool_calls: isNumber,
  top_logprobs: isNumber,
  parallel_tool_calls: isBoolean,
  truncation: (value) => value === 'auto' || value === 'disabled',
  tool_choice: (value) => value === 'auto' || value === 'none',
  include: (value) => Array.isArray(value) && value.every(isString),
  reasoning: (value) => typeof value === 'object',
  stream_options: (value) => typeof value === 'object',
  prompt_cache_key: isString,
  service_tier: isString,
  safety_identifier: isString,
};
const responseFields = [
  'model',
  'input',
  'instructions',
  'stream',
  'background',
  'store',
  'previous_response_id',
  'metadata',
  'user',
  'text',
  'tools',
  ...Object.keys(settingTypes),
];

function checkSettings(request: Record<string, unknown>): void {
  for (const [name, hasType] of Object.entries(settingTypes)) {
    const value = request[name];
    if (value !== undefined && value !== null && !hasType(value)) throw invalid(`Invalid value for '${name}'.`, name);
  }
  const { text, store } = request;
  const format = (text as { format?: { type?: unknown } } | undefined)?.format?.type;
  if (format !== undefined && format !== 'text') throw invalid('text.format is not supported by Weft: structured output is not supported yet.', 'text.format');
  if (store === false) throw invalid('Weft keeps every response (each is a durable task): store must be true or left out.', 'store');
}

function flagOf(request: Record<string, unknown>, name: 'stream' | 'background'): boolean {
  const value = request[name] ?? false;
  if (typeof value !== 'boolean') throw invalid(`Invalid type for '${name}': expected a boolean.`, name);
  return value;
}

/** An input message's text: a string, or an array of text parts. */
function contentText(content: unknown, param: string): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw invalid(`Invalid type for '${param}': expected a string or an array of text parts.`, param);
  return content
    .map((part: unknown, i) => {
      const { type, text } = (part ?? {}) as { type?: unknown; text?: unknown };
      if ((type !== 'input_text' && type !== 'output_text') || typeof text !== 'string')
        throw invalid(`Weft reads text parts only: ${param}[${i}] must be {"type": "input_text", "text": "..."}.`, `${param}[${i}]`);
      return text;
    })
    .join('');
}

/** A Responses API tool: {"type": "function", "name": ..., "parameters": ...}; Weft runs every other kind of tool itself. */
function responseToolAt(tool: unknown, i: number): ClientTool {
  const fields = (tool ?? {}) as { type?: unknown; name?: unknown; description?: unknown; parameters?: unknown };
  if (fields.type !== 'function')
    throw invalid(`tools[${i}]: Weft runs its own tools; a client may declare function tools only ({"type": "function", "name": ...}).`, `tools[${i}].type`);
  return declaredTool(fields, `tools[${i}]`);
}

/** Function call outputs: each names a call Weft sent (its call_id) and gives its output as text. */
function toolOutputsOf(items: unknown[]): ToolResult[] {
  return items.map((item, i) => {
    const { type, call_id: callId, output } = (item ?? {}) as { type?: unknown; call_id?: unknown; output?: unknown };
    if (type !== 'function_call_output')
      throw invalid(`input[${i}]: an input that gives function call outputs holds only function_call_output items.`, `input[${i}].type`);
    if (typeof callId !== 'string' || !callOfClientId(callId))
      throw invalid(`input[${i}].call_id must be the call_id of a function call Weft sent.`, `input[${i}].call_id`);
    if (typeof output !== 'string') throw invalid(`Invalid type for 'input[${i}].output': expected a string.`, `input[${i}].output`);
    return { toolCallId: callId, output };
  });
}

const isToolOutput = (item: unknown) => (item as { type?: unknown } | null)?.type === 'function_call_output';

function conversationOf(input: unknown, instructions: unknown): Pick<ResponseRequest, 'query' | 'instructions' | 'history' | 'toolOutputs'> {
  if (Array.isArray(input) && input.some(isToolOutput)) return { query: '', history: [], toolOutputs: toolOutputsOf(input) };
  if (instructions !== undefined && instructions !== null && typeof instructions !== 'string')
    throw invalid("Invalid type for 'instructions': expected a string.", 'instructions');
  const system = typeof instructions === 'string' && instructions !== '' ? [instructions] : [];
  const items = typeof input === 'string' ? [{ role: 'user', content: input }] : input;
  if (!Array.isArray(items) || items.length === 0) throw invalid("'input' must be a non-empty string or array of input messages.", 'input');
  const turns: ConversationTurn[] = [];
  items.forEach((item: unknown, i) => {
    const { type = 'message', role, content } = (item ?? {}) as { type?: unknown; role?: unknown; content?: unknown };
    if (type !== 'message') throw invalid(`input[${i}]: Weft reads input messages only (type "message"), not ${JSON.stringify(type)}.`, `input[${i}].type`);
    const text = contentText(content, `input[${i}].content`);
    if (role === 'system' || role === 'developer') system.push(text);
    else if (role === 'user' || role === 'assistant') turns.push({ role, content: text });
    else throw invalid(`Invalid value for 'input[${i}].role': expected user, assistant, system or developer.`, `input[${i}].role`);
  });
  const last = turns.at(-1);
  if (last?.role !== 'user' || last.content.trim() === '') throw invalid('The last input message must be a user message with text.', 'input');
  return { query: last.content, history: turns.slice(0, -1), ...(system.length > 0 ? { instructions: system.join('\n\n') } : {}) };
}

/** OpenAI's metadata: at most 16 string values, keys of at most 64 characters, values of at most 512. */
function metadataOf(metadata: unknown): Record<string, string> {
  if (metadata === undefined || metadata === null) return {};
  const entries = typeof metadata === 'object' && !Array.isArray(metadata) ? Object.entries(metadata) : undefined;
  if (!entries || entries.length > 16 || entries.some(([key, value]) => key.length > 64 || typeof value !== 'string' || value.length > 512))
    throw invalid("'metadata' must be an object of at most 16 string values (keys up to 64 characters, values up to 512).", 'metadata');
  return Object.fromEntries(entries) as Record<string, string>;
}

function previousOf(request: Record<string, unknown>): { previousResponseId?: string } {
  const previous = request.previous_response_id;
  if (previous === undefined || previous === null) return {};
  if (typeof previous !== 'string' || !/^resp_[A-Za-z0-9._:-]{1,160}$/.test(previous))
    throw invalid(`Invalid 'previous_response_id': ${JSON.stringify(previous)} is not a response id (resp_...).`, 'previous_response_id');
  return { previousResponseId: previous };
}

export function responseRequest(body: unknown, models: OpenAiModelCatalog): ResponseRequest {
  const request = objectBody(body, responseFields);
  checkSettings(request);
  const conversation = conversationOf(request.input, request.instructions);
  if (conversation.toolOutputs && request.previous_response_id == null)
    throw invalid('Function call outputs continue a response: give its id as previous_response_id.', 'previous_response_id');
  return {
    ...modelOf(request, models),
    ...conversation,
    stream: flagOf(request, 'stream'),
    background: flagOf(request, 'background'),
    ...previousOf(request),
    metadata: metadataOf(request.metadata),
    ...userOf(request),
    ...clientToolsOf(request, responseToolAt),
  };
}
