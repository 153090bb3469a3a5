import type { ClientTool } from '../../core/tasks/run/step-types';
import { invalid } from './openai-errors';

// The tools a chat completion's client declares and runs itself, and the results it sends back:
// a request whose messages end with tool results for calls a waiting task made continues that
// task; earlier tool exchanges of the conversation become text of its history.

/** OpenAI's function names. */
const toolName = /^[A-Za-z0-9_-]{1,64}$/;

/** One function tool the client declares, checked (`param` names where it is in the request). */
export function declaredTool(fn: { name?: unknown; description?: unknown; parameters?: unknown }, param: string): ClientTool {
  if (typeof fn.name !== 'string' || !toolName.test(fn.name)) throw invalid(`${param}.name must be 1-64 letters, digits, "_" or "-".`, `${param}.name`);
  if (fn.parameters !== undefined && (typeof fn.parameters !== 'object' || fn.parameters === null || Array.isArray(fn.parameters)))
    throw invalid(`${param}.parameters must be a JSON schema object.`, `${param}.parameters`);
  return {
    name: fn.name,
    description: typeof fn.description === 'string' ? fn.description : '',
    parameters: (fn.parameters as Record<string, unknown> | undefined) ?? { type: 'object', properties: {} },
  };
}

/**
 * The request's `tools`, each read by `toolAt` (chat completions nest a tool's fields under
 * `function`, the Responses API does not), or none when absent or `tool_choice` is "none".
 */
export function clientToolsOf(request: Record<string, unknown>, toolAt: (tool: unknown, i: number) => ClientTool): { clientTools?: ClientTool[] } {
  const { tools, tool_choice: choice, parallel_tool_calls: parallel } = request;
  if (parallel !== undefined && parallel !== null && typeof parallel !== 'boolean')
    throw invalid("Invalid type for 'parallel_tool_calls'.", 'parallel_tool_calls');
  if (choice !== undefined && choice !== null && choice !== 'auto' && choice !== 'none')
    throw invalid('Weft lets the model choose among the tools: tool_choice must be "auto" or "none".', 'tool_choice');
  if (tools === undefined || tools === null) return {};
  if (!Array.isArray(tools)) throw invalid("Invalid type for 'tools': expected an array of tools.", 'tools');
  const declared = tools.map(toolAt);
  const names = declared.map((tool) => tool.name);
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice) throw invalid(`tools declares ${twice} twice.`, 'tools');
  return choice === 'none' || declared.length === 0 ? {} : { clientTools: declared };
}

/** A chat completion's tool: {"type": "function", "function": {...}}. */
export function chatToolAt(tool: unknown, i: number): ClientTool {
  const { type, function: fn } = (tool ?? {}) as { type?: unknown; function?: unknown };
  if (type !== 'function' || typeof fn !== 'object' || fn === null)
    throw invalid(`tools[${i}] must be {"type": "function", "function": {...}}.`, `tools[${i}]`);
  return declaredTool(fn, `tools[${i}].function`);
}

export interface ToolResult {
  /** The id Weft gave the call: the task's id, then the model's id for it. */
  toolCallId: string;
  output: string;
}

interface ChatMessage {
  role?: unknown;
  content?: unknown;
  tool_call_id?: unknown;
  tool_calls?: unknown;
}

/** The id a client sees for a model's call: it names the task that waits for the result. */
export const clientCallIdOf = (taskId: string, callId: string) => `${taskId}.${callId}`;

/** The task and the model's call id a client's tool_call_id names, if it names one. */
export function callOfClientId(id: string): { taskId: string; callId: string } | undefined {
  const dot = id.indexOf('.');
  return dot > 0 && dot < id.length - 1 ? { taskId: id.slice(0, dot), callId: id.slice(dot + 1) } : undefined;
}

/** The results that end the conversation (after the assistant's tool calls), or undefined when it ends otherwise. */
export function trailingToolResults(messages: ChatMessage[], textOf: (content: unknown, param: string) => string): ToolResult[] | undefined {
  let first = messages.length;
  while (first > 0 && messages[first - 1]?.role === 'tool') first--;
  if (first === messages.length) return undefined;
  const asked = messages[first - 1];
  if (asked?.role !== 'assistant' || !Array.isArray(asked.tool_calls))
    throw invalid('Tool messages must follow the assistant message with the tool_calls they answer.', `messages[${first}]`);
  return messages.slice(first).map((message, i) => {
    const param = `messages[${first + i}]`;
    if (typeof message.tool_call_id !== 'string' || !callOfClientId(message.tool_call_id))
      throw invalid(`${param}.tool_call_id must be the id of a tool call Weft sent.`, `${param}.tool_call_id`);
    return { toolCallId: message.tool_call_id, output: textOf(message.content, `${param}.content`) };
  });
}

/** An earlier tool exchange as text of the history: what was called, or what it answered. */
export function toolExchangeText(message: ChatMessage, text: string): string {
  if (message.role === 'tool') return `[tool result for ${String(message.tool_call_id)}: ${text}]`;
  const calls = Array.isArray(message.tool_calls) ? (message.tool_calls as Array<{ function?: { name?: unknown; arguments?: unknown } }>) : [];
  const said = calls.map((call) => `[called ${String(call.function?.name)}(${String(call.function?.arguments ?? '')})]`);
  return [text, ...said].filter((part) => part !== '').join('\n');
}
