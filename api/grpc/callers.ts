import type { Metadata } from '@grpc/grpc-js';
import type { Principal } from '../../core/auth/api-keys';
import type { Authenticator } from '../tasks/auth';

// The gRPC door's callers: the `authorization` of a call's metadata, authenticated, and remembered
// by the call's metadata so the request telemetry can say whose call it was.

const callers = new WeakMap<Metadata, Principal>();

/** The caller's `authorization` metadata, as the authenticator reads it. */
export const authorizationOf = (metadata: Metadata): string | undefined => {
  const value = metadata.get('authorization')[0];
  return value === undefined ? undefined : String(value);
};

/** Who is calling, counted against the key's rate limit, and remembered for the call's telemetry. */
export async function authenticateCall(auth: Authenticator, metadata: Metadata): Promise<Principal> {
  const principal = await auth.authenticate(authorizationOf(metadata));
  callers.set(metadata, principal);
  return principal;
}

/** The authenticated caller of a call, once its handler authenticated it. */
export const callerOf = (metadata: Metadata): Principal | undefined => callers.get(metadata);

/** The `idempotency-key` metadata that names a submitted task, when given. */
export const idempotencyKeyIn = (metadata: Metadata): string | undefined => {
  const value = metadata.get('idempotency-key')[0];
  return value === undefined ? undefined : String(value);
};
