// The seed's token bucket: a full bucket of `perMinute` tokens, refilled continuously at that rate;
// a call takes one. Buckets are per key (Weft keys them by tool and tenant) and per process.

export interface TokenBuckets {
  /** Takes a token, or says how long until one is there. */
  take(key: string): { ok: true } | { ok: false; retryAfterMs: number };
  /** Tokens left now (for metrics). */
  available(key: string): number;
}

export function tokenBuckets(perMinute: number, now: () => number = Date.now): TokenBuckets {
  const perMs = perMinute / 60_000;
  const buckets = new Map<string, { tokens: number; at: number }>();
  const refilled = (key: string) => {
    const t = now();
    const bucket = buckets.get(key) ?? { tokens: perMinute, at: t };
    bucket.tokens = Math.min(perMinute, bucket.tokens + (t - bucket.at) * perMs);
    bucket.at = t;
    buckets.set(key, bucket);
    return bucket;
  };
  return {
    take(key) {
      const bucket = refilled(key);
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return { ok: true };
      }
      return { ok: false, retryAfterMs: Math.ceil((1 - bucket.tokens) / perMs) };
    },
    available: (key) => refilled(key).tokens,
  };
}
