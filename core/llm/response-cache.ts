import { createHash } from 'node:crypto';
import type { Queryable } from '../db/transaction';
import type { GatewayCompletion, ModelRequest } from './gateway';

// An exact-match cache of model answers in Postgres. A request's key is the caller's cache_key or a
// hash of the request as asked (model or tier, system, transcript, tools, sampling).
// Only complete answers are kept: a truncated one (finish_reason "length") or a failure never is.

export type CachedCompletion = GatewayCompletion;

/** Object keys in a fixed order, so equal requests hash equally however they were built. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

export function cacheKeyOf(request: ModelRequest, callerKey: string): string {
  if (callerKey) return `key:${callerKey}`;
  const { model, tier, system, messages, tools, sampling } = request;
  const normalised = JSON.stringify(
    canonical({ model: model ?? '', tier: tier ?? '', system: system ?? '', messages, tools: tools ?? [], sampling: sampling ?? {} }),
  );
  return `sha256:${createHash('sha256').update(normalised).digest('hex')}`;
}

async function findCachedCompletion(db: Queryable, tenantId: string, key: string, now: Date): Promise<CachedCompletion | undefined> {
  const { rows } = await db.query<{ response: CachedCompletion }>(
    'SELECT response FROM llm_response_cache WHERE tenant_id = $1 AND cache_key = $2 AND expires_at > $3',
    [tenantId, key, now],
  );
  return rows[0]?.response;
}

const isCacheable = (completion: GatewayCompletion) => completion.finishReason !== 'length';

async function storeCompletion(db: Queryable, tenantId: string, key: string, completion: GatewayCompletion, now: Date, ttlSeconds: number): Promise<void> {
  if (!isCacheable(completion)) return;
  await db.query(
    `INSERT INTO llm_response_cache (tenant_id, cache_key, response, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $4::timestamptz + make_interval(secs => $5))
     ON CONFLICT (tenant_id, cache_key) DO UPDATE SET response = EXCLUDED.response, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at`,
    [tenantId, key, JSON.stringify(completion), now, ttlSeconds],
  );
}

const nothingSpent = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };

export interface CacheAnswer {
  /** On a hit, the cached answer with nothing spent. */
  completion: GatewayCompletion;
  cacheHit: boolean;
  /** Keeps a fresh answer for later identical requests; nothing to do after a hit or without a key. */
  remember(db: Queryable): Promise<void>;
}

/**
 * The tenant's cached answer under `key`, else a fresh one from `ask`. Without a key (caching not
 * asked for) the answer is always fresh and never kept.
 */
export async function answerWithCache(
  db: Queryable,
  cache: { tenantId: string; key: string | undefined; ttlSeconds: number },
  ask: () => Promise<GatewayCompletion>,
): Promise<CacheAnswer> {
  const { tenantId, key, ttlSeconds } = cache;
  const cached = key ? await findCachedCompletion(db, tenantId, key, new Date()) : undefined;
  if (cached) return { completion: { ...cached, usage: nothingSpent, costUsd: 0 }, cacheHit: true, remember: async () => {} };
  const completion = await ask();
  return {
    completion,
    cacheHit: false,
    remember: async (into) => {
      if (key) await storeCompletion(into, tenantId, key, completion, new Date(), ttlSeconds);
    },
  };
}
