import * as grpc from '@grpc/grpc-js';
import { ReflectionService } from '@grpc/reflection';
import { HealthImplementation } from 'grpc-health-check';
import { packageDefinitionOf } from '../protos/load';

export interface GrpcServer {
  port: number;
  /** Reports NOT_SERVING, lets in-flight calls finish, then closes; forced after the grace period. */
  shutdown(): Promise<void>;
}

export interface GrpcServerOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  protoFiles: readonly string[];
  /** Handlers by fully qualified service name, e.g. `shannon.orchestrator.OrchestratorService`. */
  services: Record<string, object>;
  maxMessageBytes: number;
  /** Runs first on shutdown, e.g. to end open streams so their clients resume elsewhere. */
  beforeShutdown?: () => void;
}

const forceShutdownAfterMs = 10_000;

function serviceDefinition(loaded: grpc.GrpcObject, fullName: string): grpc.ServiceDefinition {
  let node: unknown = loaded;
  for (const part of fullName.split('.')) node = (node as Record<string, unknown> | undefined)?.[part];
  const service = (node as { service?: grpc.ServiceDefinition } | undefined)?.service;
  if (!service) throw new Error(`service ${fullName} is not defined in the loaded protos`);
  return service;
}

/** One gRPC port: its services, server reflection (grpcurl needs no .proto files) and grpc.health.v1. */
export async function startGrpcServer(options: GrpcServerOptions): Promise<GrpcServer> {
  const server = new grpc.Server({
    'grpc.max_receive_message_length': options.maxMessageBytes,
    'grpc.max_send_message_length': options.maxMessageBytes,
  });
  const definition = packageDefinitionOf(options.protoFiles);
  const loaded = grpc.loadPackageDefinition(definition);
  for (const [name, handlers] of Object.entries(options.services)) {
    server.addService(serviceDefinition(loaded, name), handlers as grpc.UntypedServiceImplementation);
  }
  new ReflectionService(definition).addToServer(server);
  const serviceNames = ['', ...Object.keys(options.services)];
  const health = new HealthImplementation(Object.fromEntries(serviceNames.map((name) => [name, 'SERVING'])));
  health.addToServer(server);
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`${options.host}:${options.port}`, grpc.ServerCredentials.createInsecure(), (err, bound) =>
      err ? reject(err) : resolve(bound),
    );
  });
  return {
    port,
    shutdown: () =>
      new Promise<void>((resolve) => {
        for (const name of serviceNames) health.setStatus(name, 'NOT_SERVING');
        options.beforeShutdown?.();
        const force = setTimeout(() => server.forceShutdown(), forceShutdownAfterMs);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      }),
  };
}
