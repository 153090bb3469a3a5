import * as grpc from '@grpc/grpc-js';
import type { OrchestratorServiceClient } from './generated/shannon/orchestrator/OrchestratorService';
import { loadOrchestratorProto } from './load';

export function createOrchestratorClient(
  address: string,
  credentials: grpc.ChannelCredentials = grpc.credentials.createInsecure(),
): OrchestratorServiceClient {
  const proto = loadOrchestratorProto();
  return new proto.shannon.orchestrator.OrchestratorService(address, credentials);
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
