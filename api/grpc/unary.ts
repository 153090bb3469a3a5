import type { Metadata, sendUnaryData, ServerUnaryCall, ServerWritableStream, ServiceError } from '@grpc/grpc-js';
import { authenticateCall } from './callers';
import type { Principal } from '../../core/auth/api-keys';
import type { Authenticator } from '../tasks/auth';
import { toServiceError } from './grpc-errors';
import { log } from '../../core/telemetry/logger';

/** Adapts an async unary handler to grpc-js: its result is the reply, a thrown error becomes a gRPC status. */
export function unary<Req, Res>(handler: (request: Req, call: ServerUnaryCall<Req, Res>) => Promise<Res>) {
  return (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>): void => {
    handler(call.request, call).then(
      (response) => callback(null, response),
      (err: unknown) => callback(toServiceError(err, (line) => log().error(line)) as ServiceError),
    );
  };
}

/** A unary handler that runs only for an authenticated caller, who is passed along. */
export function authorized<Req, Res>(auth: Authenticator, handler: (request: Req, principal: Principal) => Promise<Res>) {
  return authorizedCall<Req, Res>(auth, (request, principal) => handler(request, principal));
}

/** Like `authorized`, for handlers that also read the call (its metadata or deadline). */
export function authorizedCall<Req, Res>(auth: Authenticator, handler: (request: Req, principal: Principal, call: ServerUnaryCall<Req, Res>) => Promise<Res>) {
  return unary<Req, Res>(async (request, call) => handler(request, await authenticateCall(auth, call.metadata), call));
}

/** Writes one message of a server stream, waiting while the client's buffer is full. */
export function send<Req, Res>(call: ServerWritableStream<Req, Res>, message: Res): Promise<void> {
  if (call.write(message)) return Promise.resolve();
  return new Promise((resolve) => call.once('drain', () => resolve()));
}

/**
 * Adapts an async server-streaming handler: the stream ends when it returns (with the trailers it
 * returns, if any), a thrown error becomes a gRPC status.
 */
export function serverStream<Req, Res>(handler: (call: ServerWritableStream<Req, Res>) => Promise<Metadata | void>) {
  return (call: ServerWritableStream<Req, Res>): void => {
    handler(call).then(
      (trailers) => call.end(trailers ?? undefined),
      (err: unknown) => call.emit('error', toServiceError(err, (line) => log().error(line)) as ServiceError),
    );
  };
}
