import { ApplicationFailure } from '@temporalio/activity';
import { StoreError } from '../core/store';
import { isPermanentModelError } from '../core/llm/chat-model';

/**
 * Runs activity work and turns errors that can never succeed (store contract violations, permanent
 * provider errors) into non-retryable failures. Everything else is rethrown as is so Temporal retries.
 */
export async function failPermanentErrorsFast<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof StoreError || isPermanentModelError(err)) {
      throw ApplicationFailure.nonRetryable((err as Error).message, (err as Error).name);
    }
    throw err;
  }
}
