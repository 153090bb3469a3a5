import * as grpc from '@grpc/grpc-js';
import type { OrchestratorServiceClient } from './generated/shannon/orchestrator/OrchestratorService';
import { loadApiProtos } from './load';
import type { StreamingServiceClient } from './generated/shannon/orchestrator/StreamingService';

/** Sends `authorization: Bearer <key>` with every call. */
function bearer(apiKey: string): grpc.Interceptor {
  return (options, nextCall) =>
    new grpc.InterceptingCall(nextCall(options), {
      start(metadata, listener, next) {
        metadata.set('authorization', `Bearer ${apiKey}`);
        next(metadata, listener);
      },
    });
}

export function createOrchestratorClient(
  address: string,
  options: { apiKey?: string; credentials?: grpc.ChannelCredentials } = {},
): OrchestratorServiceClient {
  const proto = loadApiProtos();
  return new proto.shannon.orchestrator.OrchestratorService(address, options.credentials ?? grpc.credentials.createInsecure(), {
    interceptors: options.apiKey ? [bearer(options.apiKey)] : [],
  });
}

export function createStreamingClient(
  address: string,
  options: { apiKey?: string; credentials?: grpc.ChannelCredentials } = {},
): StreamingServiceClient {
  const proto = loadApiProtos();
  return new proto.shannon.orchestrator.StreamingService(address, options.credentials ?? grpc.credentials.createInsecure(), {
    interceptors: options.apiKey ? [bearer(options.apiKey)] : [],
  });
}

type UnaryMethod<Req, Res> = (
  request: Req,
  metadata: grpc.Metadata,
  options: grpc.CallOptions,
  callback: (err: grpc.ServiceError | null, response?: Res) => void,
) => grpc.ClientUnaryCall;

/** Calls a generated unary method and returns a promise of its response. */
export function callUnary<Req, Res>(
  method: UnaryMethod<Req, Res>,
  client: grpc.Client,
  request: Req,
  options: { metadata?: grpc.Metadata; deadlineMs?: number } = {},
): Promise<Res> {
  return new Promise((resolve, reject) => {
    const deadline = Date.now() + (options.deadlineMs ?? 30_000);
    method.call(client, request, options.metadata ?? new grpc.Metadata(), { deadline }, (err, response) =>
      err ? reject(err) : resolve(response as Res),
    );
  });
}
