import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../../core/auth/api-keys';
import type { OpenAiDeps } from './completion-task';

// What each of OpenAI's routes is: a handler of a caller already authenticated, listed in
// /openapi.json.

/** The caller is authenticated before any route's handler runs. */
export type OpenAiHandler = (
  call: { request: FastifyRequest<{ Params: Record<string, string> }>; principal: Principal },
  reply: FastifyReply,
  deps: OpenAiDeps,
) => Promise<unknown>;

/** One of OpenAI's routes: what /openapi.json lists, and how it answers. */
export interface OpenAiRoute {
  method: 'GET' | 'POST';
  path: string;
  summary: string;
  handle: OpenAiHandler;
}

/** Aborts when the client goes away; the task goes on regardless. */
export function whileConnected(reply: FastifyReply): AbortSignal {
  const gone = new AbortController();
  reply.raw.once('close', () => gone.abort());
  return gone.signal;
}

/** Takes the reply over for server-sent events: OpenAI's headers, then the events as `send` writes them. */
export function openEventStream(reply: FastifyReply, headers: Record<string, string>): { send(data: unknown, event?: string): void; end(): void } {
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no', ...headers });
  return {
    send: (data, event) => raw.write(`${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`),
    end: () => raw.end(),
  };
}
