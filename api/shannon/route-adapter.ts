import type { z } from 'zod';
import type { Pool } from 'pg';
import type { SessionDefaults } from '../tasks/session-defaults';
import type { Authenticator } from '../tasks/auth';

// Where Weft's REST route and Shannon's gateway share a path, the route accepts both request shapes
// and answers the gRPC response with the fields Shannon's clients read added. An adapter does the
// translation on either side of the one gRPC call the route makes.

export type JsonObject = Record<string, unknown>;

/** A REST request's parts, as the gateway maps them onto a gRPC request. */
export interface RequestParts {
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
}

export interface AdapterContext {
  /** The caller's credentials (its `authorization`), as the authenticator takes them. */
  authorization: string | undefined;
  pool: Pool;
  auth: Authenticator;
  sessions: SessionDefaults;
  /** The provider of a catalog model, by its id. */
  providerOf(model: string): string | undefined;
}

export interface AdaptedResponse {
  /** 200 unless Shannon answers otherwise (201 for a created stream). */
  status?: number;
  body: JsonObject;
  headers?: Record<string, string>;
}

/** What a Shannon shape adds to the route's gRPC request and response, as /openapi.json shows it (merged into the protos' messages). */
export interface ShapeSchemas {
  body?: z.ZodObject;
  query?: z.ZodObject;
  answer?: z.ZodObject;
  /** Shannon's status where it is not 200. */
  answerStatus?: number;
}

export interface RouteAdapter {
  schemas?: ShapeSchemas;
  /** Shannon's request shape made Weft's; runs before the gRPC call. */
  request?(parts: RequestParts, context: AdapterContext): Promise<RequestParts> | RequestParts;
  /** What Shannon's clients read beyond the gRPC response; runs after a successful call, with the request as the client sent it. */
  respond?(response: JsonObject, context: AdapterContext, request: RequestParts): Promise<AdaptedResponse> | AdaptedResponse;
}

/** A plain JSON object, or undefined for anything else (the gRPC mapping refuses those with a clear error). */
export const objectOf = (value: unknown): JsonObject | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : undefined;
