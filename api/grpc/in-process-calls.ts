import * as grpc from '@grpc/grpc-js';
import { context } from '@opentelemetry/api';
import type { CallObserver } from './request-telemetry';

// The gRPC door's unary calls made in process, for the REST door: no socket and no second hop, yet
// what a handler sees and how it is refused, observed and answered are those of a call on the port.

/** What a unary handler reads of its call: the request and the caller's metadata. */
const inProcessCall = (request: unknown, metadata: grpc.Metadata) => ({ request, metadata, cancelled: false });

/**
 * One unary call of a port's service, answered in this process: the request through its wire form
 * and the port's checks (`handlers` are the port's, refusing what it refuses), observed as the
 * port's calls are, the answer as a client would decode it.
 */
export function invokeInProcess(
  service: { definition: grpc.ServiceDefinition; handlers: grpc.UntypedServiceImplementation },
  name: string,
  rpc: string,
  request: object,
  metadata: grpc.Metadata,
  deadlineMs: number,
  observe?: CallObserver,
): Promise<object> {
  const method = service.definition[rpc]!;
  const handler = service.handlers[rpc] as (call: unknown, callback: grpc.sendUnaryData<unknown>) => void;
  const observed = observe?.(name, metadata);
  const received = method.requestDeserialize(method.requestSerialize(request));
  observed?.message(received);
  const answered = new Promise<object>((resolve, reject) => {
    const timer = setTimeout(() => reject({ code: grpc.status.DEADLINE_EXCEEDED, details: 'Deadline exceeded' }), deadlineMs);
    const run = () =>
      handler(inProcessCall(received, metadata), (err, response) => {
        clearTimeout(timer);
        if (err) return reject(err);
        const answer = method.responseDeserialize(method.responseSerialize(response)) as object;
        observed?.message(answer);
        resolve(answer);
      });
    if (observed) context.with(observed.context, run);
    else run();
  });
  return answered.then(
    (answer) => (observed?.end({ code: grpc.status.OK, details: '' }), answer),
    (err: { code?: grpc.status; details?: string }) => {
      observed?.end({ code: err.code ?? grpc.status.UNKNOWN, details: err.details ?? '' });
      throw err;
    },
  );
}
