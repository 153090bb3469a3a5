import { ApplicationFailure, Context } from '@temporalio/activity';
import { isUnstorableValueError } from '../core/db/errors';
import { ModelUnavailableError } from '../core/llm/gateway-errors';
import { isPermanentModelError } from '../core/llm/provider-errors';

/** Weft's own errors say whether a retry could ever succeed (store contract violations, invalid transcripts, conversation conflicts, unknown models). */
const isMarkedPermanent = (err: unknown) => (err as { permanent?: unknown } | null)?.permanent === true;

/**
 * A timer counts from the event loop's cached time, so a retry exactly at the provider's wait can
 * come a little early and find it still cooling down: Temporal's retry goes this much later.
 */
const retryAfterSlackMs = 100;

/**
 * Attempts a model step gives providers that keep failing (every candidate of its tier down or
 * busy): the activity's retry policy is sized for Weft's own infrastructure, which may take minutes
 * to come back; a provider that fails five times in a row fails the step.
 */
export const providerAttempts = 5;

/**
 * Runs activity work and tells Temporal how to retry its errors: never for errors that can never
 * succeed (those marked `permanent`, permanent provider errors, values Postgres cannot store) or
 * for providers that failed `providerAttempts` times; once the wait is over when every model asked
 * to be called later (Retry-After: the worker's gateway leaves that wait to Temporal rather than
 * sleep in the activity); otherwise as the activity's retry policy says, within its budget.
 */
export async function withTemporalRetry<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (isMarkedPermanent(err) || isPermanentModelError(err) || isUnstorableValueError(err)) {
      throw ApplicationFailure.nonRetryable((err as Error).message, (err as Error).name);
    }
    if (err instanceof ModelUnavailableError && Context.current().info.attempt >= providerAttempts) {
      throw ApplicationFailure.nonRetryable(`${err.message} (after ${providerAttempts} attempts)`, err.name);
    }
    if (err instanceof ModelUnavailableError && err.retryAfterMs !== undefined) {
      throw ApplicationFailure.create({ message: err.message, type: err.name, nextRetryDelay: err.retryAfterMs + retryAfterSlackMs, cause: err });
    }
    throw err;
  }
}
