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

export interface ClientOptions {
  /** Sent as `authorization: Bearer <key>` on every call. */
  apiKey?: string;
  credentials?: grpc.ChannelCredentials;
}

function channelArgs(options: ClientOptions): [grpc.ChannelCredentials, grpc.ClientOptions] {
  return [options.credentials ?? grpc.credentials.createInsecure(), { interceptors: options.apiKey ? [bearer(options.apiKey)] : [] }];
}

export function createOrchestratorClient(address: string, options: ClientOptions = {}): OrchestratorServiceClient {
  return new (loadApiProtos().shannon.orchestrator.OrchestratorService)(address, ...channelArgs(options));
}

export function createStreamingClient(address: string, options: ClientOptions = {}): StreamingServiceClient {
  return new (loadApiProtos().shannon.orchestrator.StreamingService)(address, ...channelArgs(options));
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
