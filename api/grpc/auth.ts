import { status as GrpcStatus, type Metadata } from '@grpc/grpc-js';
import type { Pool } from 'pg';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { verifyApiKey, type Principal, type Role } from '../../core/auth/api-keys';
import { ApiError, permissionDenied } from './grpc-errors';

export interface Authenticator {
  /** Who is calling, from `authorization: Bearer <api key>`; UNAUTHENTICATED otherwise. */
  authenticate(metadata: Metadata): Promise<Principal>;
}

/** With authentication off every caller is this principal (and the API logs a warning at start). */
export const unauthenticatedPrincipal: Principal = { tenantId: 'default', userId: 'anonymous', roles: ['approver', 'admin'] };

const cacheMs = 30_000;

export function createAuthenticator(pool: Pool, options: { enabled: boolean; perMinute?: number }): Authenticator {
  // Verified keys are remembered briefly so a busy client does not cost a query per call.
  const verified = new Map<string, { principal: Principal; until: number }>();
  const limiter = options.perMinute ? new RateLimiterMemory({ points: options.perMinute, duration: 60 }) : undefined;
  const limit = async (key: string) => {
    try {
      await limiter?.consume(key);
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      throw new ApiError(GrpcStatus.RESOURCE_EXHAUSTED, `rate limit of ${options.perMinute} calls a minute reached; retry in ${Math.ceil(err.msBeforeNext / 1000)} s`);
    }
  };
  return {
    async authenticate(metadata) {
      if (!options.enabled) return unauthenticatedPrincipal;
      const header = String(metadata.get('authorization')[0] ?? '');
      const key = /^Bearer\s+(\S+)$/i.exec(header)?.[1];
      if (!key) throw new ApiError(GrpcStatus.UNAUTHENTICATED, 'missing credentials: send "authorization: Bearer <api key>"');
      const cached = verified.get(key);
      if (cached && cached.until > Date.now()) {
        await limit(key);
        return cached.principal;
      }
      const principal = await verifyApiKey(pool, key);
      if (!principal) throw new ApiError(GrpcStatus.UNAUTHENTICATED, 'invalid or revoked API key');
      verified.set(key, { principal, until: Date.now() + cacheMs });
      await limit(key);
      return principal;
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
