import * as grpc from '@grpc/grpc-js';
import { loadOrchestratorProto } from '../protos/load';
import { createOrchestratorService, type OrchestratorDeps } from './orchestrator-service';

export interface ApiServer {
  port: number;
  shutdown(): Promise<void>;
}

const maxMessageBytes = 4 * 1024 * 1024;

/** Binds the gRPC front door (OrchestratorService) on host:port; port 0 picks a free one. */
export async function startApiServer(deps: OrchestratorDeps, host: string, port: number): Promise<ApiServer> {
  const server = new grpc.Server({
    'grpc.max_receive_message_length': maxMessageBytes,
    'grpc.max_send_message_length': maxMessageBytes,
  });
  const proto = loadOrchestratorProto();
  server.addService(
    proto.shannon.orchestrator.OrchestratorService.service,
    createOrchestratorService(deps) as grpc.UntypedServiceImplementation,
  );
  const boundPort = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`${host}:${port}`, grpc.ServerCredentials.createInsecure(), (err, bound) =>
      err ? reject(err) : resolve(bound),
    );
  });
  return {
    port: boundPort,
    // Lets in-flight calls finish, then closes; a hard stop after the deadline so shutdown cannot hang.
    shutdown: () =>
      new Promise<void>((resolve) => {
        const force = setTimeout(() => server.forceShutdown(), 10_000);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      }),
  };
}
