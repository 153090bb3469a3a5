import type { Pool } from 'pg';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { apiKeyChannel, isKeyUsable, verifyApiKey, type Principal, type Role } from '../../core/auth/api-keys';
import { listenFor } from '../../core/db/notification-listener';
import { exhausted, permissionDenied, unauthenticated } from './task-errors';
import { createKeyWatchers } from './key-watchers';
import { log } from '../../core/telemetry/logger';

// Who is calling, whichever door: each door hands over the caller's `authorization` value (a gRPC
// call's metadata, an HTTP request's header), and gets the principal every service call takes.

export interface Authenticator {
  /** Who is calling, from `authorization: Bearer <api key>`; unauthenticated otherwise. Counts against the key's rate limit. */
  authenticate(authorization: string | undefined): Promise<Principal>;
  /**
   * Who is calling, like authenticate, without counting a call against the key's rate limit: for a
   * door's step that comes before the call that counts.
   */
  identify(authorization: string | undefined): Promise<Principal>;
  /** The key's rate limit as Shannon's X-RateLimit-* headers report it; undefined without a limit or a key. */
  rateLimitOf(authorization: string | undefined): Promise<RateLimitState | undefined>;
  /**
   * A signal that aborts when the principal's key is revoked or expires, for work that outlives one
   * call (streams). `release` stops watching.
   */
  watch(principal: Principal): { signal: AbortSignal; release(): void };
  close(): Promise<void>;
}

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Seconds until the window's calls are given back. */
  resetSeconds: number;
}

async function rateLimitStateOf(limiter: RateLimiterMemory | undefined, key: string | undefined): Promise<RateLimitState | undefined> {
  if (!limiter || !key) return undefined;
  const state = await limiter.get(key);
  return {
    limit: limiter.points,
    remaining: Math.max(0, limiter.points - (state?.consumedPoints ?? 0)),
    resetSeconds: Math.ceil((state?.msBeforeNext ?? 0) / 1000),
  };
}

/** With authentication off every caller is this principal (and the API logs a warning at start). */
export const unauthenticatedPrincipal: Principal = { tenantId: 'default', userId: 'anonymous', roles: ['approver', 'admin'] };

/** Why a watched stream ends when its key stops being valid. */
export const keyRevokedError = () => unauthenticated('API key revoked or expired');

// Verified keys are remembered briefly so a busy client does not cost a query per call; a change
// to a key (NOTIFY) drops it at once, so the cache never outlives a revocation.
const cacheMs = 30_000;

export interface AuthenticatorOptions {
  pool: Pool;
  /** Where key changes are announced (LISTEN needs a connection of its own). */
  databaseUrl: string;
  enabled: boolean;
  perMinute?: number;
}

export async function startAuthenticator(options: AuthenticatorOptions): Promise<Authenticator> {
  const { pool } = options;
  const verified = new Map<string, { principal: Principal; until: number }>();
  const expiries = new Map<string, Date | undefined>();
  const streams = createKeyWatchers((keyId) => isKeyUsable(pool, keyId));
  const limiter = options.perMinute ? new RateLimiterMemory({ points: options.perMinute, duration: 60 }) : undefined;
  const limit = async (key: string) => {
    try {
      await limiter?.consume(key);
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      throw exhausted(`rate limit of ${options.perMinute} calls a minute reached; retry in ${Math.ceil(err.msBeforeNext / 1000)} s`);
    }
  };
  const changed = (keyId: string) => {
    for (const [key, entry] of verified) if (entry.principal.keyId === keyId) verified.delete(key);
    expiries.delete(keyId);
    streams.recheck(keyId);
  };
  const listener = options.enabled
    ? await listenFor(
        options.databaseUrl,
        apiKeyChannel,
        {
          notified: changed,
          // Changes announced while the connection was down are lost: forget every key, re-check watched ones.
          reconnected: () => {
            verified.clear();
            streams.recheckAll();
          },
        },
        (line) => log().warn(`API keys: ${line}`),
      )
    : undefined;

  const bearerKey = (authorization: string | undefined) => /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];

  async function verifyCaller(authorization: string | undefined, counted: boolean): Promise<Principal> {
    if (!options.enabled) return unauthenticatedPrincipal;
    const key = bearerKey(authorization);
    if (!key) throw unauthenticated('missing credentials: send "authorization: Bearer <api key>"');
    const cached = verified.get(key);
    if (cached && cached.until > Date.now()) {
      if (counted) await limit(key);
      return cached.principal;
    }
    const found = await verifyApiKey(pool, key);
    if (!found) throw unauthenticated('invalid, expired or revoked API key');
    verified.set(key, { principal: found.principal, until: Math.min(Date.now() + cacheMs, found.expiresAt?.getTime() ?? Infinity) });
    expiries.set(found.principal.keyId!, found.expiresAt);
    if (counted) await limit(key);
    return found.principal;
  }

  return {
    authenticate: (authorization) => verifyCaller(authorization, true),

    identify: (authorization) => verifyCaller(authorization, false),

    rateLimitOf: (authorization) => rateLimitStateOf(limiter, bearerKey(authorization)),

    watch(principal) {
      if (!principal.keyId) return { signal: new AbortController().signal, release: () => undefined };
      return streams.watch(principal.keyId, expiries.get(principal.keyId));
    },

    async close() {
      await listener?.close();
    },
  };
}

/** The tenant's admin holds every role of its tenant; platform_admin is never implied. */
export function hasRole(principal: Principal, role: Role): boolean {
  return principal.roles.includes(role) || (role !== 'platform_admin' && principal.roles.includes('admin'));
}

export function requireRole(principal: Principal, role: Role, action: string): void {
  if (!hasRole(principal, role)) {
    throw permissionDenied(`${action} needs the ${role} role`);
  }
}
