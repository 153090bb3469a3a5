import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { ProtoGrpcType as OrchestratorProto } from './generated/orchestrator';

const protosDir = __dirname;

// Field names stay as written in the .proto files (snake_case), like the seed's JSON examples.
const loaderOptions: protoLoader.Options = {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
  includeDirs: [protosDir],
};

function load<T>(file: string): T {
  const definition = protoLoader.loadSync(path.join(protosDir, file), loaderOptions);
  return grpc.loadPackageDefinition(definition) as unknown as T;
}

export function loadOrchestratorProto(): OrchestratorProto {
  return load<OrchestratorProto>('shannon/orchestrator/orchestrator.proto');
}
