import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { ProtoGrpcType as AgentProto } from './generated/agent';
import type { ProtoGrpcType as AiProto } from './generated/ai';
import type { ProtoGrpcType as LlmProto } from './generated/llm';
import type { ProtoGrpcType as OrchestratorProto } from './generated/orchestrator';
import type { ProtoGrpcType as SessionProto } from './generated/session';
import type { ProtoGrpcType as StreamingProto } from './generated/streaming';
import { protoPath as healthProtoPath } from 'grpc-health-check';
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

/** The .proto files behind each of the seed's ports. */
export const protoFilesByPort = {
  /** 50052: Orchestrator, Streaming, Session and ai.AIService. */
  front: ['shannon/orchestrator/orchestrator.proto', 'shannon/orchestrator/streaming.proto', 'shannon/session/session.proto', 'ai/ai.proto'],
  /** 50051 */
  agent: ['shannon/agent/agent.proto'],
  /** 8000 */
  llm: ['shannon/llm/llm.proto'],
} as const;

export const allProtoFiles = Object.values(protoFilesByPort).flat();

export type ApiProtos = OrchestratorProto & StreamingProto & SessionProto & AiProto & AgentProto & LlmProto;

/** The package definition of some .proto files (also what server reflection describes for them). */
export function packageDefinitionOf(files: readonly string[] = allProtoFiles): protoLoader.PackageDefinition {
  return qualifyTypeNames(
    protoLoader.loadSync(
      files.map((file) => path.join(protosDir, file)),
      loaderOptions,
    ),
  );
}

/** grpc.health.v1, as the health-check package ships it, for server reflection. */
export function healthPackageDefinition(): protoLoader.PackageDefinition {
  return qualifyTypeNames(protoLoader.loadSync(healthProtoPath, loaderOptions));
}

let loaded: ApiProtos | undefined;

/** Every service and message of the API, loaded once per process. */
export function loadApiProtos(): ApiProtos {
  loaded ??= grpc.loadPackageDefinition(packageDefinitionOf()) as unknown as ApiProtos;
  return loaded;
}
