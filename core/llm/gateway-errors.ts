// The model gateway's own failures, with stable messages; the API maps them to gRPC statuses.

/** A request named a model the catalog does not list (after aliases). */
export class UnknownModelError extends Error {
  override name = 'UnknownModelError';
  readonly permanent = true;
  constructor(readonly model: string) {
    super(`model "${model}" is not in the model catalog`);
  }
}

/**
 * No candidate model could answer: each one failed with a retryable error or was refused locally
 * (circuit open, rate limit, cooling down after a 429, lacking a needed feature).
 */
export class ModelUnavailableError extends Error {
  override name = 'ModelUnavailableError';
  constructor(
    readonly wanted: string,
    readonly reasons: readonly string[],
    /** Every candidate was busy (429 or a local rate limit) rather than down. */
    readonly rateLimited: boolean,
    /** The soonest a candidate may take a call again, when known. */
    readonly retryAfterMs?: number,
    options?: { cause?: unknown; permanent?: boolean },
  ) {
    super(`no model could answer ${wanted}: ${reasons.join('; ')}`, options);
    this.permanent = options?.permanent ?? false;
  }

  /** The providers asked for a longer wait than the catalog's max_retry_after_ms: no retry should wait for it. */
  readonly permanent: boolean;
}
