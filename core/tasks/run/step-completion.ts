import type { ModelRequest } from '../../llm/gateway';
import { answerWithCache, cacheKeyOf, type CacheAnswer } from '../../llm/response-cache';
import { partialOutputPublisher } from './partial-output';
import type { StepContext, TaskRunDeps } from './task-run-deps';

export interface StepAsk {
  /** The task's workflow, whose live readers get the text as it streams. */
  workflowId?: string;
  agentId: string;
  /** The tenant whose response cache may answer (the task asked for caching). */
  cacheFor?: string;
}

/**
 * A model step's answer: from the tenant's response cache when the task allows it and an identical
 * request was answered before, otherwise from the gateway with its text streaming to the task's
 * live readers. remember() keeps a fresh answer, inside the transaction that stores the step.
 */
export async function stepCompletion(
  { gateway, pool, cacheTtlSeconds }: Pick<TaskRunDeps, 'gateway' | 'pool' | 'cacheTtlSeconds'>,
  ask: StepAsk,
  request: ModelRequest,
  step: StepContext,
): Promise<CacheAnswer> {
  const cache = { tenantId: ask.cacheFor ?? '', key: ask.cacheFor ? cacheKeyOf(request, '') : undefined, ttlSeconds: cacheTtlSeconds };
  return answerWithCache(pool, cache, async () => {
    const partials = ask.workflowId ? partialOutputPublisher(pool, ask.workflowId, ask.agentId) : undefined;
    return step.keepAlive(async () => {
      try {
        return await gateway.complete({ ...request, ...(partials ? { onPartial: (text: string) => partials.add(text) } : {}) });
      } finally {
        await partials?.finish();
      }
    });
  });
}
