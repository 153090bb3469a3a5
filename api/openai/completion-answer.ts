import { EventType } from '../../core/events/event-types';
import { findTask } from '../../core/tasks/task-index';
import { TaskAgent } from '../../core/tasks/run/task-ref';
import { tailTaskEvents } from '../streaming/task-event-tail';
import type { OpenAiDeps, PreparedCompletion } from './completion-task';

// A completion's answer as the task gives it: its text as the answering agent streams it (the one
// agent of a single-agent task, the synthesis of a planned one), then the task's stored outcome.

export interface CompletionOutcome {
  status: string;
  result: string;
  errorMessage: string;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

export type AnswerPiece = { kind: 'started' } | { kind: 'text'; text: string } | { kind: 'end'; outcome: CompletionOutcome };

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

/**
 * The answer's text as it streams, then the outcome. The task starts once its events are followed,
 * so no word is missed ('started' says it did). Text a step streams before it calls tools is passed
 * on as it comes, as a model's words before its tool calls are; the answer is the last step's text,
 * so what that step's stream missed (a cached answer streams nothing) comes as one last piece, and
 * the last step's pieces add up to the result.
 */
export async function* followAnswer(deps: OpenAiDeps, task: PreparedCompletion, signal: AbortSignal, streamText: boolean): AsyncGenerator<AnswerPiece> {
  const following = new AbortController();
  const stop = () => following.abort();
  signal.addEventListener('abort', stop);
  let live!: () => void;
  const listening = new Promise<void>((resolve) => (live = resolve));
  const events = tailTaskEvents(deps, task.workflowId, 0, following.signal, () => live());
  const firstEvent = events.next();
  try {
    await Promise.race([listening, firstEvent]);
    await task.start();
    yield { kind: 'started' };
    let stepText = '';
    for (let next = await firstEvent; !next.done; next = await events.next()) {
      const event = next.value;
      if (!answeringAgents.has(event.agentId)) continue;
      if (event.type === EventType.ToolInvoked) stepText = '';
      if (event.type === EventType.LlmPartial && streamText && event.message) {
        stepText += event.message;
        yield { kind: 'text', text: event.message };
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
