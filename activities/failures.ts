import { ApplicationFailure } from '@temporalio/activity';
import { isUnstorableValueError } from '../core/db/errors';
import { StoreError } from '../core/store';
import { UnknownModelError } from '../core/llm/gateway-errors';
import { isPermanentModelError } from '../core/llm/provider-errors';
import { TranscriptError } from '../core/transcript';

/**
 * Runs activity work and turns errors that can never succeed (store contract violations, invalid
 * transcripts, permanent provider errors, models the catalog does not list, values Postgres cannot
 * store) into non-retryable failures. Everything else is rethrown as is so Temporal retries it.
 */
export async function failPermanentErrorsFast<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof StoreError || err instanceof TranscriptError || isPermanentModelError(err) || err instanceof UnknownModelError || isUnstorableValueError(err)) {
      throw ApplicationFailure.nonRetryable((err as Error).message, (err as Error).name);
    }
    throw err;
  }
}
