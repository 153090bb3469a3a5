import * as grpc from '@grpc/grpc-js';
import { ReflectionService } from '@grpc/reflection';
import { HealthImplementation } from 'grpc-health-check';
import { loadOrchestratorProto, orchestratorPackageDefinition } from '../protos/load';
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
  const definition = orchestratorPackageDefinition();
  const proto = loadOrchestratorProto(definition);
  server.addService(
    proto.shannon.orchestrator.OrchestratorService.service,
    createOrchestratorService(deps) as grpc.UntypedServiceImplementation,
  );
  // grpcurl and other tools work with no .proto files; load balancers probe the standard health service.
  new ReflectionService(definition).addToServer(server);
  const health = new HealthImplementation({ '': 'SERVING', 'shannon.orchestrator.OrchestratorService': 'SERVING' });
  health.addToServer(server);
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
        health.setStatus('', 'NOT_SERVING');
        health.setStatus('shannon.orchestrator.OrchestratorService', 'NOT_SERVING');
        const force = setTimeout(() => server.forceShutdown(), 10_000);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      }),
  };
}
