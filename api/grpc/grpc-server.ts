import * as grpc from '@grpc/grpc-js';
import { ReflectionService } from '@grpc/reflection';
import { HealthImplementation } from 'grpc-health-check';
import { methodTypes, unknownEnumIn } from '../../protos/json-mapping';
import { healthPackageDefinition, packageDefinitionOf } from '../../protos/load';
import { wireProblemOf } from '../../protos/strict-wire';
import { oversizedIdIn } from './field-limits';
import { serverCredentials, type TlsMaterial } from './tls';
import { requestTelemetry, type CallObserver } from './request-telemetry';
import { invokeInProcess } from './in-process-calls';

export interface GrpcServer {
  port: number;
  /**
   * A unary call answered in this process, for the REST door: the request goes through its wire
   * form, so the handler sees what a gRPC call's decoding gives and it is refused as the port
   * refuses it, and the call is observed as the port's calls are; no socket, no second hop.
   */
  invoke(service: string, rpc: string, request: object, metadata: grpc.Metadata, deadlineMs: number): Promise<object>;
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
  tls?: TlsMaterial;
  /**
   * A Unix socket the same services also answer on, in plaintext, for callers in this process (the
   * REST gateway): its folder is private to the API's user.
   */
  privateSocket?: string;
  /** Sees every call, on the port and in process (request telemetry). */
  observe?: CallObserver;
}

const forceShutdownAfterMs = 10_000;

/** What a request refused before any handler sees it decodes to: why it was refused. */
class RefusedRequest {
  constructor(readonly details: string) {}
}

/**
 * grpc-js answers bytes that do not decode with INTERNAL; they are the caller's mistake. Decoding
 * failures, bytes a strict parser refuses (protos/strict-wire.ts: strings that are not UTF-8, wrong
 * wire types), unknown enum numbers, NUL characters and oversized ids become a RefusedRequest,
 * which the wrapped handler answers with INVALID_ARGUMENT.
 */
function refuseInvalid(
  serviceName: string,
  definition: grpc.ServiceDefinition,
  handlers: grpc.UntypedServiceImplementation,
): grpc.UntypedServiceImplementation {
  const wrapped: grpc.UntypedServiceImplementation = {};
  for (const [name, method] of Object.entries(definition)) {
    const decode = method.requestDeserialize;
    const { request: requestType } = methodTypes(serviceName, name);
    (method as { requestDeserialize: (bytes: Buffer) => unknown }).requestDeserialize = (bytes: Buffer) => {
      const undecodable = (reason: string) => new RefusedRequest(`the request is not a valid ${name} request message: ${reason}`);
      let request: unknown;
      try {
        request = decode(bytes);
      } catch (err) {
        return undecodable(err instanceof Error ? err.message : String(err));
      }
      const malformed = wireProblemOf(requestType, bytes);
      if (malformed) return undecodable(malformed);
      // proto3 keeps unknown enum numbers; handlers may rely on every enum being one of its names.
      const unknownEnum = unknownEnumIn(requestType, request as object);
      if (unknownEnum) return undecodable(`${unknownEnum} is not a known value of its enum`);
      // Postgres cannot store NUL, and no text Weft keeps needs one.
      const withNul = pathOfNul(request);
      if (withNul) return undecodable(`${withNul} contains a NUL character`);
      const oversizedId = oversizedIdIn(request);
      return oversizedId ? new RefusedRequest(oversizedId) : request;
    };
    const handler = handlers[name] as (call: { request: unknown; emit(event: 'error', err: unknown): void }, callback?: grpc.sendUnaryData<unknown>) => void;
    if (!handler) continue;
    wrapped[name] = ((call: { request: unknown; emit(event: 'error', err: unknown): void }, callback?: grpc.sendUnaryData<unknown>) => {
      if (!(call.request instanceof RefusedRequest)) return handler(call, callback);
      const error = { code: grpc.status.INVALID_ARGUMENT, details: call.request.details };
      if (callback) callback(error);
      else call.emit('error', error);
    }) as grpc.UntypedHandleCall;
  }
  return wrapped;
}

/** The path of the first string (or object key) holding U+0000, if any. */
function pathOfNul(value: unknown, at = 'request'): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? at : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, inner] of Object.entries(value)) {
    const where = `${at}.${key}`;
    if (key.includes('\u0000')) return where;
    const found = pathOfNul(inner, where);
    if (found) return found;
  }
  return undefined;
}

/**
 * A server-streaming reply sent to many streams (one task's event to each of its watchers) is
 * serialized once, its bytes kept while the message object lives: handlers never change a message
 * once it is sent.
 */
function serializeOncePerMessage(definition: grpc.ServiceDefinition): grpc.ServiceDefinition {
  return Object.fromEntries(
    Object.entries(definition).map(([name, method]) => {
      if (!method.responseStream) return [name, method];
      const serialized = new WeakMap<object, Buffer>();
      const responseSerialize = (message: object): Buffer => {
        const known = serialized.get(message);
        if (known) return known;
        const bytes = method.responseSerialize(message);
        serialized.set(message, bytes);
        return bytes;
      };
      return [name, { ...method, responseSerialize }];
    }),
  );
}

function serviceDefinition(loaded: grpc.GrpcObject, fullName: string): grpc.ServiceDefinition {
  let node: unknown = loaded;
  for (const part of fullName.split('.')) node = (node as Record<string, unknown> | undefined)?.[part];
  const service = (node as { service?: grpc.ServiceDefinition } | undefined)?.service;
  if (!service) throw new Error(`service ${fullName} is not defined in the loaded protos`);
  return serializeOncePerMessage(service);
}

/** One gRPC port: its services, server reflection (grpcurl needs no .proto files) and grpc.health.v1. */
export async function startGrpcServer(options: GrpcServerOptions): Promise<GrpcServer> {
  const server = new grpc.Server({
    interceptors: options.observe ? [requestTelemetry(options.observe)] : [],
    'grpc.max_receive_message_length': options.maxMessageBytes,
    'grpc.max_send_message_length': options.maxMessageBytes,
  });
  const definition = packageDefinitionOf(options.protoFiles);
  const loaded = grpc.loadPackageDefinition(definition);
  const served: Record<string, { definition: grpc.ServiceDefinition; handlers: grpc.UntypedServiceImplementation }> = {};
  for (const [name, handlers] of Object.entries(options.services)) {
    const definition = serviceDefinition(loaded, name);
    served[name] = { definition, handlers: refuseInvalid(name, definition, handlers as grpc.UntypedServiceImplementation) };
    server.addService(definition, served[name].handlers);
  }
  // Reflection lists the health service too, so `grpcurl ... grpc.health.v1.Health/Check` works.
  new ReflectionService({ ...definition, ...healthPackageDefinition() }).addToServer(server);
  const serviceNames = ['', ...Object.keys(options.services)];
  const health = new HealthImplementation(Object.fromEntries(serviceNames.map((name) => [name, 'SERVING'])));
  health.addToServer(server);
  const bind = (address: string, credentials: grpc.ServerCredentials) =>
    new Promise<number>((resolve, reject) => server.bindAsync(address, credentials, (err, bound) => (err ? reject(err) : resolve(bound))));
  const port = await bind(`${options.host}:${options.port}`, serverCredentials(options.tls));
  if (options.privateSocket) await bind(`unix:${options.privateSocket}`, grpc.ServerCredentials.createInsecure());
  return {
    port,
    invoke: (service, rpc, request, metadata, deadlineMs) =>
      invokeInProcess(served[service]!, `${service}/${rpc}`, rpc, request, metadata, deadlineMs, options.observe),
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
