import * as grpc from '@grpc/grpc-js';
import { ReflectionService } from '@grpc/reflection';
import { HealthImplementation } from 'grpc-health-check';
import { apiPackageDefinition, loadApiProtos } from '../protos/load';
import type { EventFeed } from '../core/events/event-feed';
import { createOrchestratorService, type OrchestratorDeps } from './orchestrator-service';
import { createStreamingService } from './streaming-service';

export interface ApiServer {
  port: number;
  shutdown(): Promise<void>;
}

const maxMessageBytes = 4 * 1024 * 1024;

export type ApiDeps = OrchestratorDeps & { events: EventFeed };

/** Binds the gRPC front door on host:port; port 0 picks a free one. */
export async function startApiServer(deps: ApiDeps, host: string, port: number): Promise<ApiServer> {
  const server = new grpc.Server({
    'grpc.max_receive_message_length': maxMessageBytes,
    'grpc.max_send_message_length': maxMessageBytes,
  });
  const definition = apiPackageDefinition();
  const proto = loadApiProtos(definition);
  server.addService(
    proto.shannon.orchestrator.OrchestratorService.service,
    createOrchestratorService(deps) as grpc.UntypedServiceImplementation,
  );
  const streaming = createStreamingService(deps);
  server.addService(proto.shannon.orchestrator.StreamingService.service, streaming.handlers as grpc.UntypedServiceImplementation);
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
        // Open streams end cleanly; their clients resume elsewhere with the last id they saw.
        streaming.endAll();
        const force = setTimeout(() => server.forceShutdown(), 10_000);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      }),
  };
}
