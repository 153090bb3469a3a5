import type { FastifyReply, FastifyRequest } from 'fastify';
import type { WebSocket } from '@fastify/websocket';
import type { z } from 'zod';
import type { Principal } from '../../core/auth/api-keys';

// One HTTP route as every door declares it: what /openapi.json says of it (method, path, who may
// call, its query, body and answer, the error body it answers with) and how it answers. One
// wrapper (api/rest/route-registration.ts) authenticates and maps errors for all of them.

export type JsonSchema = Record<string, unknown>;

/** A schema of the document: zod, or JSON Schema built with the document's shared components (the protos' messages). */
export type RouteSchema = z.ZodType | ((components: Record<string, JsonSchema>) => JsonSchema);

/**
 * Who may call: `api_key` is authenticated by the wrapper before the handler runs (counted against
 * the key's rate limit); `public` by nobody; `grpc_door` by the gRPC door's handler the route calls,
 * from the same credentials, so a call counts once.
 */
export type RouteAuth = 'api_key' | 'public' | 'grpc_door';

/** A protocol's error body: its schema, and a failure as its HTTP status and body. */
export interface ErrorShape {
  name: string;
  schema: z.ZodType;
  of(err: unknown): { httpStatus: number; body: unknown };
}

export type HttpRequest = FastifyRequest<{ Params: Record<string, string>; Querystring: Record<string, unknown> }>;

export interface HttpCall {
  request: HttpRequest;
  /** The authenticated caller; absent on `public` and `grpc_door` routes. */
  principal: Principal;
}

export interface RouteAnswer {
  /** 200 unless said otherwise. */
  status?: number;
  description: string;
  /** application/json unless said otherwise. */
  contentType?: string;
  schema?: RouteSchema;
}

/** What the document reads of a route. */
export interface RouteDescription {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** With `:name` path parameters; `*` is the rest of the path. */
  path: string;
  summary: string;
  tag: string;
  /** Unique across the document; made of the method and path when absent. */
  operationId?: string;
  auth: RouteAuth;
  errors: ErrorShape;
  /** The query parameters the route reads, an object's properties. */
  query?: RouteSchema;
  /** Whether a query parameter the route does not read (its zod `query`) is refused (400) before anything else. */
  refusesOtherQuery?: boolean;
  headers?: z.ZodObject;
  body?: { schema: RouteSchema; required: boolean };
  answer: RouteAnswer;
}

/** An HTTP route answered by `handle`, or a WebSocket route whose handshake authenticates (without counting) and whose socket `handleSocket` serves. */
export type HttpRoute<Deps> = RouteDescription & ({ handle: HttpHandler<Deps>; handleSocket?: never } | { handleSocket: SocketHandler<Deps>; handle?: never });

export type HttpHandler<Deps> = (call: HttpCall, reply: FastifyReply, deps: Deps) => Promise<unknown> | unknown;
export type SocketHandler<Deps> = (socket: WebSocket, request: HttpRequest, deps: Deps) => void;
