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

/** The package definition (also what server reflection describes). */
export function orchestratorPackageDefinition(): protoLoader.PackageDefinition {
  return protoLoader.loadSync(path.join(protosDir, 'shannon/orchestrator/orchestrator.proto'), loaderOptions);
}

export function loadOrchestratorProto(definition = orchestratorPackageDefinition()): OrchestratorProto {
  return grpc.loadPackageDefinition(definition) as unknown as OrchestratorProto;
}
