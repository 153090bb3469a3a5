import { ApplicationFailure } from '@temporalio/activity';
import { isUnstorableValueError } from '../core/db/errors';
import { isPermanentModelError } from '../core/llm/provider-errors';

/** Weft's own errors say whether a retry could ever succeed (store contract violations, invalid transcripts, conversation conflicts, unknown models). */
const isMarkedPermanent = (err: unknown) => (err as { permanent?: unknown } | null)?.permanent === true;

/**
 * Runs activity work and turns errors that can never succeed (those marked `permanent`, permanent
 * provider errors, values Postgres cannot store) into non-retryable failures. Everything else is
 * rethrown as is so Temporal retries it, within the activity's retry budget.
 */
export async function failPermanentErrorsFast<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (isMarkedPermanent(err) || isPermanentModelError(err) || isUnstorableValueError(err)) {
      throw ApplicationFailure.nonRetryable((err as Error).message, (err as Error).name);
    }
    throw err;
  }
}
