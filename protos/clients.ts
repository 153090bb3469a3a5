import * as grpc from '@grpc/grpc-js';
import { loadApiProtos, type ApiProtos } from './load';

/** Sends `authorization: Bearer <key>` with every call. */
function bearer(apiKey: string): grpc.Interceptor {
  return (options, nextCall) =>
    new grpc.InterceptingCall(nextCall(options), {
      start(metadata, listener, next) {
        metadata.set('authorization', `Bearer ${apiKey}`);
        next(metadata, listener);
      },
    });
}

export interface ClientOptions {
  /** Sent as `authorization: Bearer <key>` on every call. */
  apiKey?: string;
  credentials?: grpc.ChannelCredentials;
}

function channelArgs(options: ClientOptions): [grpc.ChannelCredentials, grpc.ClientOptions] {
  return [options.credentials ?? grpc.credentials.createInsecure(), { interceptors: options.apiKey ? [bearer(options.apiKey)] : [] }];
}

/** The client class of each service, by a short name. */
function serviceClients(protos: ApiProtos) {
  return {
    orchestrator: protos.shannon.orchestrator.OrchestratorService,
    streaming: protos.shannon.orchestrator.StreamingService,
    session: protos.shannon.session.SessionService,
    ai: protos.ai.AIService,
    agent: protos.shannon.agent.AgentService,
    llm: protos.shannon.llm.LLMService,
  };
}

export type ServiceName = keyof ReturnType<typeof serviceClients>;
export type ServiceClient<S extends ServiceName> = InstanceType<ReturnType<typeof serviceClients>[S]>;

export function createServiceClient<S extends ServiceName>(service: S, address: string, options: ClientOptions = {}): ServiceClient<S> {
  const Client = serviceClients(loadApiProtos())[service];
  return new Client(address, ...channelArgs(options)) as ServiceClient<S>;
}

export const createOrchestratorClient = (address: string, options: ClientOptions = {}) => createServiceClient('orchestrator', address, options);
export const createStreamingClient = (address: string, options: ClientOptions = {}) => createServiceClient('streaming', address, options);

export type UnaryMethod<Req, Res> = (
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
    method.call(client, request, options.metadata ?? new grpc.Metadata(), { deadline }, (err, response) => (err ? reject(err) : resolve(response as Res)));
  });
}

/** The request and response types of a generated unary method (its last overload is `(request, callback)`). */
type UnaryTypes<F> = F extends (request: infer Req, callback: grpc.requestCallback<infer Res>) => grpc.ClientUnaryCall
  ? { request: Req; response: Res }
  : never;

/** Calls a unary method by name: `await unaryCall(sessions, 'CreateSession', { user_id: 'ann' })`. */
export function unaryCall<C extends grpc.Client, M extends keyof C & string>(
  client: C,
  method: M,
  request: UnaryTypes<C[M]>['request'],
  options: { metadata?: grpc.Metadata; deadlineMs?: number } = {},
): Promise<UnaryTypes<C[M]>['response']> {
  return callUnary(client[method] as UnaryMethod<unknown, UnaryTypes<C[M]>['response']>, client, request, options);
}
