import OpenAI from 'openai';
import { ModelUnavailableError } from './gateway-errors';

// How the gateway tells a provider's failures apart: permanent (the request itself is wrong),
// rate-limited (429), or an outage (5xx, 408, unreachable, timed out). Only the last opens a circuit.

/** Provider errors a retry cannot fix: bad requests, auth, unknown model. 408, 409 and 429 can heal. */
export function isPermanentModelError(err: unknown): boolean {
  if (!(err instanceof OpenAI.APIError) || err.status === undefined) return false;
  return err.status >= 400 && err.status < 500 && ![408, 409, 429].includes(err.status);
}

/** A failure of the provider call that another attempt (later, or elsewhere) may not have. */
export function isRetryableModelError(err: unknown): boolean {
  // A call the caller abandoned says nothing about the provider.
  return err instanceof OpenAI.APIError && !(err instanceof OpenAI.APIUserAbortError) && !isPermanentModelError(err);
}

export const isRateLimitError = (err: unknown) => err instanceof OpenAI.APIError && err.status === 429;

/** A provider that is down or unreachable, as opposed to one that is busy (429). */
export const isProviderOutage = (err: unknown) => isRetryableModelError(err) && !isRateLimitError(err);

/** The wait a provider asked for: `retry-after-ms`, or `retry-after` in seconds or as an HTTP date. */
export function retryAfterMsOf(err: unknown, now = Date.now()): number | undefined {
  if (!(err instanceof OpenAI.APIError) || !err.headers) return undefined;
  const ms = Number(err.headers.get('retry-after-ms'));
  if (Number.isFinite(ms) && ms >= 0 && err.headers.has('retry-after-ms')) return ms;
  const header = err.headers.get('retry-after');
  if (header === null || header.trim() === '') return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** No model answered: the provider refused or failed, or the gateway had no candidate to ask. Not Weft's own bugs. */
export function isModelFailure(err: unknown): boolean {
  return err instanceof OpenAI.APIError || err instanceof ModelUnavailableError;
}

/** What went wrong, in a line (the client's messages start with the HTTP status). */
export function describeModelError(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
