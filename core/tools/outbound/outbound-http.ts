import {
  BrokenCircuitError,
  ConsecutiveBreaker,
  ExponentialBackoff,
  circuitBreaker,
  handleWhen,
  retry,
  wrap,
  type CircuitBreakerPolicy,
  type IPolicy,
} from 'cockatiel';
import { Agent, fetch as undiciFetch, type RequestInit, type Response } from 'undici';
import { ToolError } from '../tool';
import type { DestinationPolicy } from './destination-policy';

// Every request a tool sends to the outside (HTTP fetch, OpenAPI operations, MCP servers) goes
// through here: the destination policy on every hop (redirects are followed by hand, at most five,
// each one checked, and a redirect to another origin carries no credentials), a circuit breaker per origin (cockatiel; the seed's MCP_CB_* settings), retries
// with exponential backoff and jitter for network failures and timeouts only, and a timeout. Failures
// become the seed's typed tool errors: validation (refused destination), network, circuit_open.

export interface OutboundOptions {
  policy: DestinationPolicy;
  timeoutMs: number;
  /** Consecutive failures (unreachable, timed out, 5xx) that open an origin's circuit. */
  breakerFailures: number;
  /** How long an open circuit refuses before letting one probe through. */
  breakerRecoveryMs: number;
  /** Attempts for a request that failed on the network (or timed out, for idempotent methods). */
  maxAttempts: number;
  initialBackoffMs?: number;
}

export type BreakerStateName = 'closed' | 'open' | 'half_open';

export interface OutboundHttp {
  /** `once`: a request that must not be sent twice (an at-most-once tool) is never retried. */
  fetch(url: string | URL, init?: RequestInit, options?: { once?: boolean }): Promise<Response>;
  breakerState(origin: string): BreakerStateName;
  /** Breaker state changes, for metrics. */
  onBreakerChange(listener: (origin: string, state: BreakerStateName) => void): void;
  /** Every failure a breaker counts, for metrics. */
  onFailure(listener: (origin: string) => void): void;
}

const maxRedirects = 5;
/** What a request keeps when a redirect leaves its origin: nothing that could be a credential. */
const crossOriginHeaders = new Set(['accept', 'accept-language', 'content-type', 'user-agent']);

/** The request for the next hop: credentials stay with their origin, and 303 (or 301/302 after POST) continues as a GET. */
function redirected(request: RequestInit, status: number, from: URL, to: URL): RequestInit {
  let next = request;
  if (status === 303 || ((status === 301 || status === 302) && request.method?.toUpperCase() === 'POST')) {
    next = { ...next, method: 'GET', body: null };
  }
  if (to.origin !== from.origin) {
    // Authorization, cookies, API-key headers (whatever their name): only plainly harmless headers cross.
    const kept = [...new Headers(next.headers as ConstructorParameters<typeof Headers>[0])].filter(([name]) => crossOriginHeaders.has(name));
    next = { ...next, headers: kept };
  }
  return next;
}
const idempotent = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

class TimedOut extends Error {}

/** A failure of the request itself: refused, reset, unresolvable, timed out (not an HTTP status). */
const isNetworkFailure = (err: unknown) => err instanceof TimedOut || (err instanceof TypeError && !(err.cause instanceof ToolError));

function networkError(origin: string, err: unknown): ToolError {
  if (err instanceof TimedOut) return new ToolError('network', `request to ${origin} timed out after ${err.message} ms`);
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return new ToolError('network', `request to ${origin} failed: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
}

export function createOutboundHttp(options: OutboundOptions): OutboundHttp {
  const dispatcher = new Agent({ connect: { lookup: options.policy.lookup } });
  const breakers = new Map<string, CircuitBreakerPolicy>();
  const listeners: Array<(origin: string, state: BreakerStateName) => void> = [];
  const failureListeners: Array<(origin: string) => void> = [];
  const stateNames: BreakerStateName[] = ['closed', 'open', 'half_open', 'open'];

  const breakerFor = (origin: string) => {
    let breaker = breakers.get(origin);
    if (!breaker) {
      breaker = circuitBreaker(
        handleWhen(isNetworkFailure).orWhenResult((response) => (response as Response).status >= 500),
        { halfOpenAfter: options.breakerRecoveryMs, breaker: new ConsecutiveBreaker(options.breakerFailures) },
      );
      breaker.onStateChange((state) => listeners.forEach((listener) => listener(origin, stateNames[state]!)));
      breaker.onFailure(({ handled }) => {
        if (handled) failureListeners.forEach((listener) => listener(origin));
      });
      breakers.set(origin, breaker);
    }
    return breaker;
  };

  const retrying = (method: string, once: boolean): IPolicy =>
    retry(
      handleWhen((err) => err instanceof TypeError || (err instanceof TimedOut && idempotent.has(method))),
      { maxAttempts: once ? 0 : options.maxAttempts - 1, backoff: new ExponentialBackoff({ initialDelay: options.initialBackoffMs ?? 100, maxDelay: 5_000 }) },
    );

  /** One hop: policy, then the breaker around the retries around the request. */
  async function hop(url: URL, init: RequestInit, once: boolean): Promise<Response> {
    options.policy.checkUrl(url);
    const method = (init.method ?? 'GET').toUpperCase();
    const attempt = async () => {
      const timeout = AbortSignal.timeout(options.timeoutMs);
      const signal = init.signal ? AbortSignal.any([init.signal as AbortSignal, timeout]) : timeout;
      try {
        return await undiciFetch(url, { ...init, signal, dispatcher, redirect: 'manual' });
      } catch (err) {
        if (timeout.aborted && !(init.signal as AbortSignal | undefined)?.aborted) throw new TimedOut(String(options.timeoutMs));
        throw err;
      }
    };
    try {
      // The breaker sees a call once, after its retries: MCP_CB_FAILURES counts failed calls, not attempts.
      return await wrap(breakerFor(url.origin), retrying(method, once)).execute(attempt);
    } catch (err) {
      if (err instanceof BrokenCircuitError)
        throw new ToolError('circuit_open', `${url.origin} is failing; its circuit is open, calls resume after ${options.breakerRecoveryMs / 1000} s`);
      // The destination policy refused the address a connection was about to use.
      if ((err as { cause?: unknown }).cause instanceof ToolError) throw (err as { cause: ToolError }).cause;
      if (isNetworkFailure(err)) throw networkError(url.origin, err);
      throw err;
    }
  }

  return {
    async fetch(target, init = {}, { once = false } = {}) {
      let url = new URL(target.toString());
      let request = init;
      for (let redirects = 0; ; redirects += 1) {
        const response = await hop(url, request, once);
        const location = response.status >= 300 && response.status < 400 ? response.headers.get('location') : null;
        if (!location) return response;
        if (redirects === maxRedirects) throw new ToolError('network', `more than ${maxRedirects} redirects from ${url.origin}`);
        await response.body?.cancel();
        const next = new URL(location, url);
        request = redirected(request, response.status, url, next);
        url = next;
      }
    },
    breakerState: (origin) => stateNames[breakerFor(origin).state]!,
    onBreakerChange: (listener) => listeners.push(listener),
    onFailure: (listener) => failureListeners.push(listener),
  };
}

/** Reads a response body up to a size limit; larger is an execution error rather than a memory spike. */
export async function readLimited(response: Response, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  // Leaving the loop early cancels the rest of the body.
  for await (const chunk of response.body ?? []) {
    size += (chunk as Uint8Array).byteLength;
    if (size > maxBytes) throw new ToolError('execution', `the response is larger than ${maxBytes} bytes`);
    chunks.push(Buffer.from(chunk as Uint8Array));
  }
  return Buffer.concat(chunks).toString('utf8');
}
