import type { ServerWritableStream } from '@grpc/grpc-js';
import type { Principal } from '../../core/auth/api-keys';
import { keyRevokedError, type Authenticator } from '../tasks/auth';

export interface StreamLifetime {
  /** Aborts when the client leaves, the server shuts down, or the caller's key is revoked or expires. */
  signal: AbortSignal;
  /** After the stream's loop: a stream cut short by its key ends UNAUTHENTICATED, not as if complete. */
  throwIfKeyRevoked(): void;
  release(): void;
}

/**
 * How long a server stream may go on. `open` holds the streams a graceful shutdown ends (clients
 * resume elsewhere); a revoked key ends its streams at once.
 */
export function streamLifetime<Req, Res>(
  call: ServerWritableStream<Req, Res>,
  auth: Authenticator,
  principal: Principal,
  open: Set<AbortController>,
): StreamLifetime {
  const ending = new AbortController();
  const key = auth.watch(principal);
  open.add(ending);
  call.on('cancelled', () => ending.abort());
  return {
    signal: AbortSignal.any([ending.signal, key.signal]),
    throwIfKeyRevoked() {
      if (key.signal.aborted) throw keyRevokedError();
    },
    release() {
      open.delete(ending);
      key.release();
    },
  };
}
