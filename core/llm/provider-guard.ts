import { CircuitState, ConsecutiveBreaker, circuitBreaker, handleWhen, type CircuitBreakerPolicy } from 'cockatiel';
import type { Pool } from 'pg';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { CatalogProvider, Resilience } from './model-catalog';
import { isProviderOutage } from './provider-errors';

// What stands between the gateway and one provider: a circuit breaker (cockatiel) that opens after
// consecutive outages and lets one probe through once half-open, the provider's requests- and
// tokens-per-minute limits (rate-limiter-flexible; shared by every process through Postgres when
// the gateway has a database, else per process), and the wait a 429 asked for.

export type BreakerState = 'closed' | 'open' | 'half_open';

export interface Refusal {
  reason: string;
  retryAfterMs?: number;
  rateLimited: boolean;
}

export interface ProviderGuard {
  readonly provider: CatalogProvider;
  /** Why the provider cannot take a call of about this many tokens now; undefined when it can. */
  admit(estimatedTokens: number): Promise<Refusal | undefined>;
  /** Runs the call through the circuit breaker; an open circuit refuses with a BrokenCircuitError. */
  run<T>(call: () => Promise<T>): Promise<T>;
  /** Charges tokens the estimate missed (or returns what it overcharged) to the tokens-per-minute limit. */
  settleTokens(estimatedTokens: number, actualTokens: number): Promise<void>;
  /** The provider asked (Retry-After) not to be called for this long. */
  coolDown(ms: number): void;
  breakerState(): BreakerState;
}

const breakerStates: Record<CircuitState, BreakerState> = {
  [CircuitState.Closed]: 'closed',
  [CircuitState.Open]: 'open',
  [CircuitState.HalfOpen]: 'half_open',
  [CircuitState.Isolated]: 'open',
};

/** A per-minute limiter: in Postgres (migration 011) when a pool is given, so every process shares it. */
function perMinute(points: number, keyPrefix: string, pool: Pool | undefined): RateLimiterAbstract | undefined {
  if (points <= 0) return undefined;
  if (!pool) return new RateLimiterMemory({ points, duration: 60, keyPrefix });
  return new RateLimiterPostgres({
    storeClient: pool,
    tableName: 'weft_rate_limits',
    tableCreated: true,
    clearExpiredByTimeout: false,
    points,
    duration: 60,
    keyPrefix,
  });
}

export function createProviderGuard(provider: CatalogProvider, resilience: Resilience, options: { now: () => number; pool?: Pool }): ProviderGuard {
  const { now } = options;
  const breaker: CircuitBreakerPolicy = circuitBreaker(handleWhen(isProviderOutage), {
    halfOpenAfter: resilience.breaker_half_open_after_ms,
    breaker: new ConsecutiveBreaker(resilience.breaker_failures),
  });
  let openedAt = 0;
  breaker.onBreak(() => (openedAt = now()));
  // cockatiel moves an open circuit to half-open on the first call after the wait, so until then
  // "open" may already mean "ready for a probe".
  const msUntilProbe = () => Math.max(0, openedAt + resilience.breaker_half_open_after_ms - now());
  const state = (): BreakerState => (breaker.state === CircuitState.Open && msUntilProbe() === 0 ? 'half_open' : breakerStates[breaker.state]);
  const requests = perMinute(provider.requests_per_minute, 'provider-requests', options.pool);
  const tokens = perMinute(provider.tokens_per_minute, 'provider-tokens', options.pool);
  let coolingUntil = 0;

  const consume = async (limiter: RateLimiterAbstract | undefined, points: number, what: string): Promise<Refusal | undefined> => {
    if (!limiter || points <= 0) return undefined;
    try {
      await limiter.consume(provider.id, Math.min(points, limiter.points));
      return undefined;
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      return { reason: `provider ${provider.id} is at its ${what} per minute limit`, retryAfterMs: err.msBeforeNext, rateLimited: true };
    }
  };

  return {
    provider,
    async admit(estimatedTokens) {
      if (state() === 'open') return { reason: `provider ${provider.id} circuit is open`, retryAfterMs: msUntilProbe(), rateLimited: false };
      const waitMs = coolingUntil - now();
      if (waitMs > 0) return { reason: `provider ${provider.id} asked to retry after ${waitMs} ms`, retryAfterMs: waitMs, rateLimited: true };
      return (await consume(requests, 1, 'requests')) ?? (await consume(tokens, estimatedTokens, 'tokens'));
    },
    run: (call) => breaker.execute(call),
    async settleTokens(estimatedTokens, actualTokens) {
      if (!tokens || actualTokens === estimatedTokens) return;
      if (actualTokens > estimatedTokens) await tokens.penalty(provider.id, actualTokens - estimatedTokens);
      else await tokens.reward(provider.id, estimatedTokens - actualTokens);
    },
    coolDown(ms) {
      coolingUntil = Math.max(coolingUntil, now() + ms);
    },
    breakerState: state,
  };
}
