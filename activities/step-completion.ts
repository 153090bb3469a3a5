import type { Queryable } from '../core/db/transaction';
import type { GatewayCompletion, ModelRequest } from '../core/llm/gateway';
import { cacheKeyOf, findCachedCompletion, storeCompletion } from '../core/llm/response-cache';
import type { ActivityDeps } from './deps';
import { whileHeartbeating } from './heartbeat';
import { partialOutputPublisher } from './partial-output';

export interface StepCompletion {
  completion: GatewayCompletion;
  /** Answered from the response cache: nothing was spent. */
  cacheHit: boolean;
  /** Keeps a fresh answer in the cache, inside the transaction that stores the step. */
  remember(tx: Queryable): Promise<void>;
}

export interface StepAsk {
  /** The task's workflow, whose live readers get the text as it streams. */
  workflowId?: string;
  agentId: string;
  /** The tenant whose response cache may answer (the task asked for caching). */
  cacheFor?: string;
}

const nothingSpent = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };

/**
 * A model step's answer: from the tenant's response cache when the task allows it and an identical
 * request was answered before, otherwise from the gateway with its text streaming to the task's
 * live readers.
 */
export async function stepCompletion(
  { gateway, pool, cacheTtlSeconds }: Pick<ActivityDeps, 'gateway' | 'pool' | 'cacheTtlSeconds'>,
  ask: StepAsk,
  request: ModelRequest,
): Promise<StepCompletion> {
  const key = ask.cacheFor ? cacheKeyOf(request, '') : undefined;
  const cached = ask.cacheFor && key ? await findCachedCompletion(pool, ask.cacheFor, key, new Date()) : undefined;
  if (cached) return { completion: { ...cached, usage: nothingSpent, costUsd: 0 }, cacheHit: true, remember: async () => {} };

  const partials = ask.workflowId ? partialOutputPublisher(pool, ask.workflowId, ask.agentId) : undefined;
  const completion = await whileHeartbeating(async () => {
    try {
      return await gateway.complete({ ...request, ...(partials ? { onPartial: (text: string) => partials.add(text) } : {}) });
    } finally {
      await partials?.finish();
    }
  });
  return {
    completion,
    cacheHit: false,
    remember: async (tx) => {
      if (ask.cacheFor && key) await storeCompletion(tx, ask.cacheFor, key, completion, new Date(), cacheTtlSeconds);
    },
  };
}
