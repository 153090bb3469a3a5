import type { ModelRequest } from '../../llm/gateway';
import { answerWithCache, cacheKeyOf, type CacheAnswer } from '../../llm/response-cache';
import type { Queryable } from '../../db/transaction';
import { partialOutputPublisher } from './partial-output';
import type { StepContext, TaskWriteDeps } from './task-write-deps';

export interface StepAsk {
  /** The task's workflow, whose live readers get the text as it streams. */
  workflowId?: string;
  agentId: string;
  /** The tenant whose response cache may answer (the task asked for caching). */
  cacheFor?: string;
  /** The streamed text goes into the task's event log rather than to live readers only (partial-output.ts). */
  recordPartials?: boolean;
  /** The run and step: what names a recorded piece's step. */
  runId: string;
  step: number;
}

export interface StepAnswer extends CacheAnswer {
  /**
   * Sends the rest of the streamed text with the transaction that stores the step (its commit
   * delivers it). Not called when another attempt stored the step first: its own text went out.
   */
  finishStream(tx: Queryable): Promise<void>;
  /** The notifications finishStream would send, for a statement that sends them itself; none when the text is recorded in the log. */
  restOfStream(): string[] | undefined;
}

/**
 * A model step's answer: from the tenant's response cache when the task allows it and an identical
 * request was answered before, otherwise from the gateway with its text streaming to the task's
 * live readers. remember() keeps a fresh answer and finishStream() sends the rest of its text,
 * both inside the transaction that stores the step.
 */
export async function stepCompletion(
  { gateway, pool, cacheTtlSeconds }: Pick<TaskWriteDeps, 'gateway' | 'pool' | 'cacheTtlSeconds'>,
  ask: StepAsk,
  request: ModelRequest,
  step: StepContext,
): Promise<StepAnswer> {
  const cache = { tenantId: ask.cacheFor ?? '', key: ask.cacheFor ? cacheKeyOf(request, '') : undefined, ttlSeconds: cacheTtlSeconds };
  const recordAs = ask.recordPartials ? { step: `${ask.runId}/${ask.agentId}/${ask.step}`, attempt: step.attempt ?? 1 } : undefined;
  const partials = ask.workflowId ? partialOutputPublisher(pool, ask.workflowId, ask.agentId, recordAs) : undefined;
  const answer = await answerWithCache(pool, cache, () =>
    step.keepAlive(() => gateway.complete({ ...request, ...(partials ? { onPartial: (text: string) => partials.add(text) } : {}) })),
  ).catch(async (err: unknown) => {
    // What streamed before the failure still reaches the readers.
    await partials?.finish();
    throw err;
  });
  const rest = await partials?.finishIn();
  return { ...answer, finishStream: async (tx) => rest?.send(tx), restOfStream: () => (rest ? rest.liveNotes() : []) };
}
