import type { ClientToolCall, CompletionOutcome } from './completion-answer';
import type { CompletionRequest } from './completion-request';
import type { PreparedCompletion } from './completion-task';

// OpenAI's response and chunk objects for a completion task. The completion's id names its task,
// so `weft status`, the Web UI and the store find the run behind any answer.

export type CompletionKind = 'chat' | 'text';

export interface CompletionShape {
  kind: CompletionKind;
  request: CompletionRequest;
  task: PreparedCompletion;
  created: number;
}

const idOf = ({ kind, task }: CompletionShape) => `${kind === 'chat' ? 'chatcmpl' : 'cmpl'}-${task.taskId}`;

const common = (shape: CompletionShape) => ({ id: idOf(shape), created: shape.created, model: shape.request.modelName, system_fingerprint: null });

function choice(kind: CompletionKind, text: string, finishReason: string | null, streamed: boolean) {
  if (kind === 'text') return { index: 0, text, logprobs: null, finish_reason: finishReason };
  const message = streamed
    ? { delta: text === '' && finishReason !== null ? {} : { content: text } }
    : { message: { role: 'assistant', content: text, refusal: null } };
  return { index: 0, ...message, logprobs: null, finish_reason: finishReason };
}

export function completionObject(shape: CompletionShape, outcome: CompletionOutcome) {
  return {
    ...common(shape),
    object: shape.kind === 'chat' ? 'chat.completion' : 'text_completion',
    choices: [choice(shape.kind, outcome.result, 'stop', false)],
    usage: outcome.usage,
  };
}

const asToolCall = (call: ClientToolCall) => ({ id: call.id, type: 'function' as const, function: { name: call.name, arguments: call.arguments } });

/** The task waits for the client to run these tools: OpenAI's answer with tool_calls. */
export function toolCallsObject(shape: CompletionShape, calls: ClientToolCall[], text: string, outcome: CompletionOutcome) {
  return {
    ...common(shape),
    object: 'chat.completion',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: text === '' ? null : text, refusal: null, tool_calls: calls.map(asToolCall) },
        logprobs: null,
        finish_reason: 'tool_calls',
      },
    ],
    usage: outcome.usage,
  };
}

/** The calls as one streamed chunk (each whole, with its index), before the chunk that ends with tool_calls. */
export function toolCallsChunk(shape: CompletionShape, calls: ClientToolCall[]) {
  const delta = { tool_calls: calls.map((call, index) => ({ index, ...asToolCall(call) })) };
  return {
    ...common(shape),
    object: chunkObject(shape),
    choices: [{ index: 0, delta, logprobs: null, finish_reason: null }],
    ...(shape.request.includeUsage ? { usage: null } : {}),
  };
}

/** A chunk of the answer's text; the first chat chunk also says who speaks. */
export function textChunk(shape: CompletionShape, text: string, first: boolean) {
  const chunk = choice(shape.kind, text, null, true);
  const withRole = shape.kind === 'chat' && first ? { ...chunk, delta: { role: 'assistant', content: text } } : chunk;
  return { ...common(shape), object: chunkObject(shape), choices: [withRole], ...(shape.request.includeUsage ? { usage: null } : {}) };
}

export function finalChunk(shape: CompletionShape, finishReason: 'stop' | 'tool_calls' = 'stop') {
  return {
    ...common(shape),
    object: chunkObject(shape),
    choices: [choice(shape.kind, '', finishReason, true)],
    ...(shape.request.includeUsage ? { usage: null } : {}),
  };
}

/** With stream_options.include_usage: a last chunk with no choices and the task's usage. */
export function usageChunk(shape: CompletionShape, outcome: CompletionOutcome) {
  return { ...common(shape), object: chunkObject(shape), choices: [], usage: outcome.usage };
}

const chunkObject = (shape: CompletionShape) => (shape.kind === 'chat' ? 'chat.completion.chunk' : 'text_completion');
