import { EventType } from '../../core/events/event-types';
import { findTask } from '../../core/tasks/task-index';
import { TaskAgent } from '../../core/tasks/run/task-ref';
import { tailTaskEvents } from '../tasks/task-event-tail';
import type { TaskEvent } from '../../core/events/event-log';
import { clientCallIdOf } from './client-tool-request';
import type { OpenAiDeps, PreparedCompletion } from './completion-task';

// A completion's answer as the task gives it: its text as the answering agent streams it (the one
// agent of a single-agent task, the synthesis of a planned one), then the task's stored outcome.

export interface CompletionOutcome {
  status: string;
  result: string;
  errorMessage: string;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

/** A call of a tool the client runs, as the client sees it (its id names the task that waits: client-tool-request.ts). */
export interface ClientToolCall {
  id: string;
  name: string;
  arguments: string;
}

export type AnswerPiece =
  | { kind: 'started' }
  | { kind: 'text'; text: string }
  | { kind: 'end'; outcome: CompletionOutcome }
  /** The task waits for the client to run these: the answer so far is the text before them. */
  | { kind: 'tool_calls'; calls: ClientToolCall[]; text: string; outcome: CompletionOutcome };

const answeringAgents: ReadonlySet<string> = new Set([TaskAgent.Main, TaskAgent.Synthesis]);

/** The stored outcome of a task that has ended. */
export async function outcomeOf(deps: Pick<OpenAiDeps, 'pool'>, taskId: string): Promise<CompletionOutcome> {
  const record = await findTask(deps.pool, taskId);
  if (!record) throw new Error(`task ${taskId} ended without a record in the task index`);
  const { promptTokens, completionTokens, totalTokens } = record.usage;
  return {
    status: record.status,
    result: record.result,
    errorMessage: record.errorMessage,
    usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: totalTokens },
  };
}

/** A client tool's announcement (client-tools.ts), as the client's call. */
function clientCallOf(event: TaskEvent, taskId: string): (ClientToolCall & { of: number }) | undefined {
  const { client, tool, tool_call_id: id, arguments: args, of } = event.payload as Record<string, unknown>;
  if (client !== true || typeof id !== 'string' || typeof tool !== 'string') return undefined;
  return { id: clientCallIdOf(taskId, id), name: tool, arguments: JSON.stringify(args ?? {}), of: Number(of) };
}

/**
 * The answer's text as it streams, then the outcome, or the client's tool calls the task waits
 * for. The task starts (or, given tool results, goes on) once its events after `after` are
 * followed, so no word is missed ('started' says it did). Text a step streams before it calls
 * tools is passed on as it comes, as a model's words before its tool calls are; the answer is the
 * last step's text, so what that step's stream missed (a cached answer streams nothing) comes as
 * one last piece, and the last step's pieces add up to the result.
 */
export async function* followAnswer(
  deps: OpenAiDeps,
  task: Pick<PreparedCompletion, 'taskId' | 'workflowId' | 'start'>,
  signal: AbortSignal,
  streamText: boolean,
  after = 0,
): AsyncGenerator<AnswerPiece> {
  const following = new AbortController();
  const stop = () => following.abort();
  signal.addEventListener('abort', stop);
  let live!: () => void;
  const listening = new Promise<void>((resolve) => (live = resolve));
  const events = tailTaskEvents(deps, task.workflowId, after, following.signal, () => live());
  const firstEvent = events.next();
  try {
    await Promise.race([listening, firstEvent]);
    await task.start();
    yield { kind: 'started' };
    let stepText = '';
    const clientCalls: ClientToolCall[] = [];
    for (let next = await firstEvent; !next.done; next = await events.next()) {
      const event = next.value;
      if (!answeringAgents.has(event.agentId)) continue;
      const clientCall = event.type === EventType.ToolInvoked ? clientCallOf(event, task.taskId) : undefined;
      if (clientCall) {
        const { of, ...call } = clientCall;
        clientCalls.push(call);
        if (clientCalls.length < of) continue;
        yield { kind: 'tool_calls', calls: clientCalls, text: stepText, outcome: await outcomeOf(deps, task.taskId) };
        return;
      }
      if (event.type === EventType.ToolInvoked) stepText = '';
      if (event.type === EventType.LlmPartial && event.message) {
        stepText += event.message;
        if (streamText) yield { kind: 'text', text: event.message };
      }
    }
    if (signal.aborted) return;
    const outcome = await outcomeOf(deps, task.taskId);
    if (streamText && outcome.result.startsWith(stepText) && outcome.result.length > stepText.length)
      yield { kind: 'text', text: outcome.result.slice(stepText.length) };
    yield { kind: 'end', outcome };
  } finally {
    signal.removeEventListener('abort', stop);
    stop();
    await events.return(undefined);
  }
}
