import type { sendUnaryData, ServerUnaryCall, ServiceError } from '@grpc/grpc-js';
import { toServiceError } from './grpc-errors';

/** Adapts an async handler to grpc-js: its result is the reply, a thrown error becomes a gRPC status. */
export function unary<Req, Res>(handler: (request: Req, call: ServerUnaryCall<Req, Res>) => Promise<Res>) {
  return (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>): void => {
    handler(call.request, call).then(
      (response) => callback(null, response),
      (err: unknown) => callback(toServiceError(err, (line) => console.error(line)) as ServiceError),
    );
  };
}
