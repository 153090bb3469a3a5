import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { ProtoGrpcType as OrchestratorProto } from './generated/orchestrator';
import type { ProtoGrpcType as StreamingProto } from './generated/streaming';
import { qualifyTypeNames } from './qualified-descriptors';

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

const apiProtoFiles = ['shannon/orchestrator/orchestrator.proto', 'shannon/orchestrator/streaming.proto'];

export type ApiProtos = OrchestratorProto & StreamingProto;

/** The package definition of every service the API serves (also what server reflection describes). */
export function apiPackageDefinition(): protoLoader.PackageDefinition {
  return qualifyTypeNames(protoLoader.loadSync(apiProtoFiles.map((file) => path.join(protosDir, file)), loaderOptions));
}

export function loadApiProtos(definition = apiPackageDefinition()): ApiProtos {
  return grpc.loadPackageDefinition(definition) as unknown as ApiProtos;
}
