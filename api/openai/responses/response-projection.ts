import type { TaskEvent } from '../../../core/events/event-log';
import { EventType } from '../../../core/events/event-types';
import type { StoredResponse } from '../../../core/openai/response-index';
import { TaskAgent } from '../../../core/tasks/run/task-ref';
import { TaskStatus } from '../../../core/tasks/task-status';
import type { CompletionOutcome } from '../completion-answer';
import { clientCallIdOf } from '../client-tool-request';

// A response and its stream of OpenAI events as a pure function of the task's event log (whose
// partials the task records, partial-output.ts) and, at the end, its stored outcome. Any API
// process that folds the same log gets the same events with the same sequence numbers, so a stream
// resumed after `starting_after` on another process continues with no gap and no duplicate.
//
// Each model step of the answering agent that writes text is a message item: the words a model
// says before calling tools, and then its answer. A step retried after it began to stream starts a
// new item, the interrupted one ends `incomplete`.

type ItemStatus = 'in_progress' | 'completed' | 'incomplete';
type ResponseStatus = 'queued' | 'in_progress' | 'completed' | 'failed' | 'cancelled' | 'incomplete';

interface MessageItem {
  kind: 'message';
  id: string;
  status: ItemStatus;
  text: string;
  /** The step and attempt whose recorded pieces it holds; absent for text from the outcome. */
  source?: { step: string; attempt: number };
}

/** A call of a tool the client runs: the response ends once the step's calls are all out, and the task waits for their outputs. */
interface FunctionCallItem {
  kind: 'function_call';
  id: string;
  callId: string;
  name: string;
  arguments: string;
}

type OutputItem = MessageItem | FunctionCallItem;

/** One of OpenAI's stream events before it is numbered. */
export type ResponseEventBody = { type: string } & Record<string, unknown>;

const answeringAgents: ReadonlySet<string> = new Set([TaskAgent.Main, TaskAgent.Synthesis]);

const outputText = (text: string) => ({ type: 'output_text', text, annotations: [], logprobs: [] });

function itemObject(item: OutputItem) {
  if (item.kind === 'function_call') {
    return { id: item.id, type: 'function_call', status: 'completed', call_id: item.callId, name: item.name, arguments: item.arguments };
  }
  return {
    id: item.id,
    type: 'message',
    status: item.status,
    role: 'assistant',
    content: item.status === 'in_progress' && item.text === '' ? [] : [outputText(item.text)],
  };
}

export class ResponseProjection {
  private readonly items: OutputItem[] = [];
  private status: ResponseStatus = 'in_progress';
  private outcome?: CompletionOutcome;
  /** The answering step's calls of the client's tools so far; with all of them out the response has ended. */
  private clientCalls = 0;
  private handedToClient = false;
  /** Items since the answering agent last called tools: the answer, continued or not. */
  private answerFrom = 0;

  constructor(private readonly response: StoredResponse) {}

  /** Item ids are the task's, and a continuing response's start in its log, so no two responses share one. */
  private get itemPrefix(): string {
    return this.response.afterSeq > 0 ? `${this.response.taskId}.${this.response.afterSeq}` : this.response.taskId;
  }

  /** The events every response stream starts with. */
  begin(): ResponseEventBody[] {
    return [
      { type: 'response.created', response: this.snapshot() },
      { type: 'response.in_progress', response: this.snapshot() },
    ];
  }

  /** The events one entry of the task's log adds. */
  apply(event: TaskEvent): ResponseEventBody[] {
    if (this.handedToClient || !answeringAgents.has(event.agentId) || event.seq === 0) return [];
    if (event.type === EventType.ToolInvoked && (event.payload as { client?: unknown }).client === true) return this.clientCall(event);
    if (event.type === EventType.ToolInvoked) {
      const closed = this.close('completed');
      this.answerFrom = this.items.length;
      return closed;
    }
    if (event.type !== EventType.LlmPartial) return [];
    const { step, attempt } = event.payload as { step?: string; attempt?: number };
    if (typeof step !== 'string' || typeof attempt !== 'number') return [];
    const open = this.openItem();
    const events: ResponseEventBody[] = [];
    if (open?.source?.step !== step || open.source.attempt !== attempt) {
      // Another attempt at the same step starts over: what its predecessor said stays as it was.
      events.push(...this.close(open?.source?.step === step ? 'incomplete' : 'completed'), ...this.add({ step, attempt }));
    }
    return [...events, this.delta(event.message)];
  }

  /** The last events, once the task has ended with `outcome`. */
  end(outcome: CompletionOutcome): ResponseEventBody[] {
    this.outcome = outcome;
    if (outcome.status !== TaskStatus.Completed) {
      const closed = this.close('incomplete');
      this.status = outcome.status === TaskStatus.Cancelled ? 'cancelled' : 'failed';
      return [...closed, { type: this.status === 'cancelled' ? 'response.cancelled' : 'response.failed', response: this.snapshot() }];
    }
    return [...this.finishAnswer(outcome.result), ...this.close('completed'), this.completion()];
  }

  /** The response as GET /v1/responses/{id} gives it at this point of the log. */
  snapshot() {
    const { response, outcome } = this;
    const usage = outcome?.usage;
    return {
      id: response.responseId,
      object: 'response',
      created_at: Math.floor(response.createdAt.getTime() / 1000),
      status: this.status,
      background: response.request.background,
      model: response.model,
      instructions: response.request.instructions,
      previous_response_id: response.request.previous_response_id,
      metadata: response.request.metadata,
      output: this.items.map(itemObject),
      error: this.status === 'failed' ? { code: 'server_error', message: `the task ended ${outcome?.status}: ${outcome?.errorMessage ?? ''}` } : null,
      incomplete_details: null,
      usage: usage
        ? {
            input_tokens: usage.prompt_tokens,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens: usage.completion_tokens,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: usage.total_tokens,
          }
        : null,
      parallel_tool_calls: true,
      tool_choice: 'auto',
      tools: [],
      temperature: null,
      top_p: null,
      text: { format: { type: 'text' } },
      truncation: 'disabled',
      store: true,
    };
  }

  /** The task has ended, or this response has (its client has the calls the task waits for). */
  get ended(): boolean {
    return this.outcome !== undefined || this.handedToClient;
  }

  /** A call of a tool the client runs, as OpenAI streams one; the step's last ends the response. */
  private clientCall(event: TaskEvent): ResponseEventBody[] {
    const { tool, tool_call_id: id, arguments: args, of } = event.payload as { tool: string; tool_call_id: string; arguments?: unknown; of: number };
    const item: FunctionCallItem = {
      kind: 'function_call',
      id: `fc_${this.itemPrefix}_${this.items.length}`,
      callId: clientCallIdOf(this.response.taskId, id),
      name: tool,
      arguments: JSON.stringify(args ?? {}),
    };
    const closed = this.close('completed');
    this.items.push(item);
    const output_index = this.items.length - 1;
    const events: ResponseEventBody[] = [
      ...closed,
      { type: 'response.output_item.added', output_index, item: { ...itemObject(item), status: 'in_progress', arguments: '' } },
      { type: 'response.function_call_arguments.delta', item_id: item.id, output_index, delta: item.arguments },
      { type: 'response.function_call_arguments.done', item_id: item.id, output_index, arguments: item.arguments },
      { type: 'response.output_item.done', output_index, item: itemObject(item) },
    ];
    this.clientCalls += 1;
    if (this.clientCalls < Number(of)) return events;
    this.handedToClient = true;
    return [...events, this.completion()];
  }

  private completion(): ResponseEventBody {
    this.status = 'completed';
    return { type: 'response.completed', response: this.snapshot() };
  }

  /**
   * The task's result is the answer: what its last steps streamed, unless some of it never
   * streamed (an answer from the response cache streams nothing), which comes now.
   */
  private finishAnswer(result: string): ResponseEventBody[] {
    const streamed = this.items
      .slice(this.answerFrom)
      .map((item) => (item.kind === 'message' ? item.text : ''))
      .join('');
    if (result === streamed) return [];
    if (result.startsWith(streamed) && this.openItem()) return [this.delta(result.slice(streamed.length))];
    const rest = result.startsWith(streamed) ? result.slice(streamed.length) : result;
    return [...this.close('completed'), ...this.add(undefined), this.delta(rest)];
  }

  private openItem(): MessageItem | undefined {
    const last = this.items.at(-1);
    return last?.kind === 'message' && last.status === 'in_progress' ? last : undefined;
  }

  private add(source: MessageItem['source']): ResponseEventBody[] {
    const item: MessageItem = {
      kind: 'message',
      id: `msg_${this.itemPrefix}_${this.items.length}`,
      status: 'in_progress',
      text: '',
      ...(source ? { source } : {}),
    };
    this.items.push(item);
    const place = { item_id: item.id, output_index: this.items.length - 1, content_index: 0 };
    return [
      { type: 'response.output_item.added', output_index: place.output_index, item: itemObject(item) },
      { type: 'response.content_part.added', ...place, part: outputText('') },
    ];
  }

  private delta(text: string): ResponseEventBody {
    const item = this.openItem()!;
    item.text += text;
    return { type: 'response.output_text.delta', item_id: item.id, output_index: this.items.length - 1, content_index: 0, delta: text, logprobs: [] };
  }

  private close(status: Exclude<ItemStatus, 'in_progress'>): ResponseEventBody[] {
    const item = this.openItem();
    if (!item) return [];
    item.status = status;
    const place = { item_id: item.id, output_index: this.items.length - 1, content_index: 0 };
    return [
      { type: 'response.output_text.done', ...place, text: item.text, logprobs: [] },
      { type: 'response.content_part.done', ...place, part: outputText(item.text) },
      { type: 'response.output_item.done', output_index: place.output_index, item: itemObject(item) },
    ];
  }
}
