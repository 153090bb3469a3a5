import type { OpenAiModel, OpenAiModelCatalog } from '../../../core/openai/model-catalog';
import type { ClientTool } from '../../../core/tasks/run/step-types';
import { callOfClientId, clientToolsOf, declaredTool, type ToolResult } from '../client-tool-request';
import { modelOf, objectBody, userOf, type ConversationTurn } from '../completion-request';
import { invalid } from '../openai-errors';

// The body of POST /v1/responses, checked as OpenAI checks it, as what a Weft task needs: the query
// (the last user message of `input`), the instructions, the turns before it, the function tools
// the client runs itself, and how the caller wants the answer (streamed, in the background, after
// an earlier response). An input that ends with function_call_output items instead gives the
// outputs of the calls a waiting task made (the previous response's, or those the input holds):
// that task goes on with them.

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
  /** The outputs of the function calls a waiting task made: it goes on (query and history are then empty). */
  toolOutputs?: ToolResult[];
  /** Before the outputs, the turn as a client that keeps the conversation itself holds it: checked against the task. */
  heldTurn?: HeldTurn;
}

/** A function call Weft sent, as the client holds it, and where it is in the input. */
export interface HeldCall {
  at: number;
  callId: string;
  name: string;
  arguments: string;
}

/** The task's turn as the client holds it: the user's message that began it, and the calls Weft sent since. */
export interface HeldTurn {
  query?: { text: string; at: number };
  calls: HeldCall[];
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

interface InputItem {
  type?: unknown;
  role?: unknown;
  content?: unknown;
  call_id?: unknown;
  name?: unknown;
  arguments?: unknown;
  output?: unknown;
}

const itemAt = (items: unknown[], i: number) => (items[i] ?? {}) as InputItem;
const isToolOutput = (item: unknown) => (item as InputItem | null)?.type === 'function_call_output';

/** A function call output: it names a call Weft sent (its call_id) and gives its output as text. */
function toolOutputAt(item: InputItem, i: number): ToolResult {
  const { call_id: callId, output } = item;
  if (typeof callId !== 'string' || !callOfClientId(callId))
    throw invalid(`input[${i}].call_id must be the call_id of a function call Weft sent.`, `input[${i}].call_id`);
  if (typeof output !== 'string') throw invalid(`Invalid type for 'input[${i}].output': expected a string.`, `input[${i}].output`);
  return { toolCallId: callId, output };
}

/** A function call Weft sent, as the client sends it back in the conversation it keeps. */
function heldCallAt(item: InputItem, i: number): HeldCall {
  const { call_id: callId, name, arguments: args } = item;
  if (typeof callId !== 'string' || !callOfClientId(callId))
    throw invalid(`input[${i}].call_id must be the call_id of a function call Weft sent.`, `input[${i}].call_id`);
  if (typeof name !== 'string') throw invalid(`Invalid type for 'input[${i}].name': expected a string.`, `input[${i}].name`);
  if (typeof args !== 'string') throw invalid(`Invalid type for 'input[${i}].arguments': expected a string.`, `input[${i}].arguments`);
  return { at: i, callId, name, arguments: args };
}

type Conversation = Pick<ResponseRequest, 'query' | 'instructions' | 'history' | 'toolOutputs' | 'heldTurn'>;

/**
 * The input's messages, function calls and their outputs, in order: the system text, the turns
 * (an earlier function call and its output as text of the assistant's turn, as a chat completion's
 * are), the calls, and where the outputs that answer no call of the input begin (they must end it).
 */
function readItems(items: unknown[]) {
  const system: string[] = [];
  const turns: Array<ConversationTurn & { at: number }> = [];
  const calls: HeldCall[] = [];
  let trailing = items.length;
  while (trailing > 0 && isToolOutput(items[trailing - 1])) trailing--;
  items.forEach((_item, i) => {
    const item = itemAt(items, i);
    const { type = 'message', role, content } = item;
    if (type === 'function_call') {
      const call = heldCallAt(item, i);
      calls.push(call);
      turns.push({ role: 'assistant', content: `[called ${call.name}(${call.arguments})]`, at: i });
    } else if (type === 'function_call_output') {
      const output = toolOutputAt(item, i);
      const answered = calls.some((call) => call.callId === output.toolCallId);
      if (!answered && i < trailing)
        throw invalid(
          `input[${i + 1}]: function call outputs for calls the input does not hold continue the response that made them, so they end the input; nothing may follow them.`,
          `input[${i + 1}].type`,
        );
      if (answered && i < trailing) turns.push({ role: 'assistant', content: `[tool result for ${output.toolCallId}: ${output.output}]`, at: i });
    } else if (type === 'message') {
      const text = contentText(content, `input[${i}].content`);
      if (role === 'system' || role === 'developer') system.push(text);
      else if (role === 'user' || role === 'assistant') turns.push({ role, content: text, at: i });
      else throw invalid(`Invalid value for 'input[${i}].role': expected user, assistant, system or developer.`, `input[${i}].role`);
    } else {
      throw invalid(`input[${i}]: Weft reads messages, function calls and their outputs, not ${JSON.stringify(type)}.`, `input[${i}].type`);
    }
  });
  return { system, turns, calls, trailing };
}

/**
 * The conversation the input gives: a new turn (the last item is the user's message), or the
 * outputs of the function calls a waiting task made, which end the input. Before such outputs a
 * client that keeps the conversation itself sends it whole: the turn from the user's last message
 * on is what the task holds (heldTurn), checked against it when the task goes on.
 */
function conversationOf(input: unknown, instructions: unknown): Conversation {
  if (instructions !== undefined && instructions !== null && typeof instructions !== 'string')
    throw invalid("Invalid type for 'instructions': expected a string.", 'instructions');
  const items = typeof input === 'string' ? [{ role: 'user', content: input }] : input;
  if (!Array.isArray(items) || items.length === 0) throw invalid("'input' must be a non-empty string or array of input messages.", 'input');
  const { system, turns, calls, trailing } = readItems(items);
  if (typeof instructions === 'string' && instructions !== '') system.unshift(instructions);
  const systemText = system.length > 0 ? { instructions: system.join('\n\n') } : {};
  if (trailing < items.length) {
    const toolOutputs = items.slice(trailing).map((item, i) => toolOutputAt(item as InputItem, trailing + i));
    const lastUser = [...turns].reverse().find((turn) => turn.role === 'user');
    const heldTurn: HeldTurn = {
      ...(lastUser ? { query: { text: lastUser.content, at: lastUser.at } } : {}),
      calls: calls.filter((call) => call.at > (lastUser?.at ?? -1)),
    };
    return { query: '', history: [], ...systemText, toolOutputs, heldTurn };
  }
  const last = turns.at(-1);
  if (last?.role !== 'user' || last.content.trim() === '') throw invalid('The last input message must be a user message with text.', 'input');
  return { query: last.content, history: turns.slice(0, -1).map(({ role, content }) => ({ role, content })), ...systemText };
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
  const held = conversation.heldTurn?.calls ?? [];
  if (
    conversation.toolOutputs &&
    request.previous_response_id == null &&
    !conversation.toolOutputs.every((out) => held.some((call) => call.callId === out.toolCallId))
  )
    throw invalid(
      'Function call outputs continue a response: give its id as previous_response_id, or the whole conversation with the function calls they answer.',
      'previous_response_id',
    );
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
