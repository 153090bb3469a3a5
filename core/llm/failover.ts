import { ExponentialBackoff, handleWhen, isBrokenCircuitError, retry, type IBackoffFactory, type IRetryBackoffContext } from 'cockatiel';
import { ModelUnavailableError } from './gateway-errors';
import type { CatalogModel, Resilience } from './model-catalog';
import { describeModelError, isRateLimitError, isRetryableModelError, retryAfterMsOf } from './provider-errors';
import type { ProviderGuard, Refusal } from './provider-guard';

// Failover across a request's candidates: a round tries each candidate once, skipping providers
// whose circuit is open, that are over their per-minute limits or that asked to be left alone
// (Retry-After); a round that no candidate answers is retried with exponential backoff and jitter,
// waiting at least what a provider asked.

/** A model (or embedding model) on a provider. */
export interface Target {
  id: string;
  provider: string;
  tokenizer?: CatalogModel['tokenizer'];
}

/**
 * A retry after a provider's wait goes this much later. A timer counts from the event loop's cached
 * time, which lags the clock by however long the loop has been busy, so it can fire before
 * Date.now() says the wait is over; a round that comes early finds the provider still cooling down
 * and is refused again without asking it (seen on a loaded CI machine).
 */
const retryAfterSlackMs = 50;

/** Waits the backoff's delay, or longer when the providers asked for more (Retry-After). */
function honouringRetryAfter(backoff: IBackoffFactory<IRetryBackoffContext<unknown>>): IBackoffFactory<IRetryBackoffContext<unknown>> {
  return {
    next(context) {
      const step = backoff.next(context);
      const error = 'error' in context.result ? context.result.error : undefined;
      const asked = error instanceof ModelUnavailableError ? (error.retryAfterMs ?? 0) : 0;
      return { duration: Math.max(step.duration, asked > 0 ? asked + retryAfterSlackMs : 0), next: (later) => honouringRetryAfter(step).next(later) };
    },
  };
}

/**
 * Retries a round nobody answered, unless a provider asked for a longer wait than
 * max_retry_after_ms, or asked for any wait when the caller retries itself after it (a worker's
 * activity: Temporal's retry waits, not the activity).
 */
export function roundRetries(resilience: Resilience, waitsForRetryAfter: boolean) {
  const retries = (err: ModelUnavailableError) =>
    waitsForRetryAfter ? (err.retryAfterMs ?? 0) <= resilience.max_retry_after_ms : err.retryAfterMs === undefined;
  return retry(
    handleWhen((err) => err instanceof ModelUnavailableError && retries(err)),
    {
      maxAttempts: resilience.max_attempts - 1,
      backoff: honouringRetryAfter(new ExponentialBackoff({ initialDelay: resilience.initial_backoff_ms, maxDelay: resilience.max_backoff_ms })),
    },
  );
}

export interface Round<T> {
  /** How errors name what was asked for, e.g. "in tier MEDIUM". */
  wanted: string;
  targets: readonly Target[];
  /** Candidates refused before any call (unavailable, lacking a feature). */
  refusedUpFront: readonly string[];
  guardOf(providerId: string): ProviderGuard;
  /** Tokens a call to the target will take, for its provider's limit. */
  estimate(target: Target): number;
  call(target: Target): Promise<T>;
  now(): number;
}

/** One round: each target once, in order, until one answers. */
export async function failoverRound<T>(round: Round<T>): Promise<{ target: Target; guard: ProviderGuard; tokens: number; value: T }> {
  const { wanted, targets, refusedUpFront, guardOf, estimate, call, now } = round;
  const reasons = [...refusedUpFront];
  let rateLimited = true;
  let soonest: number | undefined;
  let lastError: unknown;
  const refuse = (target: Target, refusal: Refusal) => {
    reasons.push(`${target.id}: ${refusal.reason}`);
    rateLimited &&= refusal.rateLimited;
    if (refusal.retryAfterMs !== undefined) soonest = Math.min(soonest ?? Infinity, refusal.retryAfterMs);
  };
  for (const target of targets) {
    const guard = guardOf(target.provider);
    const tokens = estimate(target);
    const refusal = await guard.admit(tokens);
    if (refusal) {
      refuse(target, refusal);
      continue;
    }
    try {
      return { target, guard, tokens, value: await guard.run(() => call(target)) };
    } catch (err) {
      if (isBrokenCircuitError(err)) {
        refuse(target, { reason: `provider ${target.provider} circuit is open`, rateLimited: false });
        continue;
      }
      if (!isRetryableModelError(err)) throw err;
      lastError = err;
      const retryAfterMs = retryAfterMsOf(err, now());
      if (retryAfterMs !== undefined) guard.coolDown(retryAfterMs);
      refuse(target, { reason: describeModelError(err), rateLimited: isRateLimitError(err), ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) });
    }
  }
  throw new ModelUnavailableError(wanted, reasons, rateLimited && reasons.length > refusedUpFront.length, soonest, { cause: lastError });
}

/** A wait longer than the catalog's max_retry_after_ms is waited for by nobody: the failure is then permanent. */
export function beyondMaxWait(err: unknown, resilience: Resilience): unknown {
  const maxMs = resilience.max_retry_after_ms;
  if (!(err instanceof ModelUnavailableError) || err.permanent || (err.retryAfterMs ?? 0) <= maxMs) return err;
  const reasons = [...err.reasons, `the providers asked to wait ${err.retryAfterMs} ms, more than max_retry_after_ms (${maxMs})`];
  return new ModelUnavailableError(err.wanted, reasons, err.rateLimited, err.retryAfterMs, { cause: err.cause, permanent: true });
}
