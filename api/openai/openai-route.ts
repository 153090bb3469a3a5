import type { FastifyReply } from 'fastify';
import type { HttpHandler, HttpRoute, RouteDescription, RouteSchema } from '../http/http-route';
import type { OpenAiDeps } from './completion-task';
import { openAiErrors } from './openai-errors';

// What each of OpenAI's routes is: a route of the one route table, answered by a handler of a caller
// already authenticated.

export type OpenAiRoute = HttpRoute<OpenAiDeps>;
export type OpenAiHandler = HttpHandler<OpenAiDeps>;

/** One of OpenAI's routes: its caller authenticated before the handler runs, its errors in OpenAI's body. */
export function openAiRoute(
  route: Pick<RouteDescription, 'method' | 'path' | 'summary' | 'query'> & { handle: OpenAiHandler; body?: RouteSchema; answer: RouteSchema },
): OpenAiRoute {
  const { body, answer, ...rest } = route;
  return {
    ...rest,
    tag: 'openai',
    auth: 'api_key',
    errors: openAiErrors,
    ...(body ? { body: { schema: body, required: true } } : {}),
    answer: { description: 'OK: JSON, or server-sent events with stream: true', schema: answer },
  };
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
