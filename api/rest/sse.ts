import type { ServiceError, StatusObject } from '@grpc/grpc-js';
import { fromGrpcFailure } from '../grpc/grpc-errors';
import { taskEndedTrailer } from '../grpc/streaming/streaming-service';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceClient } from '../../protos/clients';
import type { TaskUpdate__Output } from '../../protos/generated/shannon/orchestrator/TaskUpdate';
import { messageType, toJson } from '../../protos/json-mapping';
import { grpcRequestOf, metadataOf } from './http-mapping';
import { httpErrorOf } from '../http/http-errors';
import type { StreamRoute } from './routes';

const taskUpdate = () => messageType('shannon.orchestrator.TaskUpdate');

/**
 * Clients that resume by query (Shannon's SDK) send the last event's id as last_event_id, which is
 * a stream id (`<unix ms>-<seq>`) there: it is read as last_stream_id.
 */
function withStreamIdsAsSuch(query: Record<string, unknown>): Record<string, unknown> {
  const { last_event_id: lastEventId, ...rest } = query;
  if (typeof lastEventId === 'string' && /^\d+-\d+$/.test(lastEventId) && rest.last_stream_id === undefined) return { ...rest, last_stream_id: lastEventId };
  return query;
}

/** An update's JSON as the route's clients read it: Shannon's carry `seq` as a number. */
export function eventData(route: StreamRoute, update: TaskUpdate__Output): string {
  const json = toJson(taskUpdate(), update);
  return JSON.stringify(route.shannon ? { ...json, seq: Number(update.seq) } : json);
}

/** The StreamTaskExecution request a stream route's HTTP request asks for (Last-Event-ID, query, path). */
export function streamRequestOf(route: StreamRoute, request: FastifyRequest<{ Params: Record<string, string>; Querystring: Record<string, unknown> }>) {
  const lastEventId = request.headers['last-event-id'];
  return grpcRequestOf(messageType('shannon.orchestrator.StreamRequest'), {
    params: { ...request.params, ...(typeof lastEventId === 'string' && lastEventId ? { last_stream_id: lastEventId } : {}) },
    query: withStreamIdsAsSuch(request.query),
    body: undefined,
    queryFields: route.query,
  });
}

/**
 * Calls `ended` once the stream has ended and its status arrived (in either order); the status's
 * trailers say whether the task's events are over (true) or the stream was cut short.
 */
export function whenStreamEnds(
  call: { on(event: 'end', listener: () => void): unknown; on(event: 'status', listener: (status: StatusObject) => void): unknown },
  ended: (taskEnded: boolean) => void,
): void {
  let over = false;
  let status: StatusObject | undefined;
  const finish = () => {
    if (over && status) ended(status.metadata.get(taskEndedTrailer).length > 0);
  };
  call.on('end', () => {
    over = true;
    finish();
  });
  call.on('status', (received: StatusObject) => {
    status = received;
    finish();
  });
}

/**
 * StreamTaskExecution as server-sent events. Each event's id is its stream id, so a reconnecting
 * EventSource (which sends Last-Event-ID) resumes after it with no gap and no duplicate. Comments
 * keep idle connections open through proxies. Errors before the stream starts are HTTP errors.
 */
export function serveTaskEvents(
  route: StreamRoute,
  streaming: ServiceClient<'streaming'>,
  keepAliveMs: number,
  request: FastifyRequest<{ Params: Record<string, string>; Querystring: Record<string, unknown> }>,
  reply: FastifyReply,
): void {
  const streamRequest = (() => {
    try {
      return streamRequestOf(route, request);
    } catch (err) {
      const { httpStatus, body } = httpErrorOf(fromGrpcFailure(err));
      void reply.code(httpStatus).send(body);
      return undefined;
    }
  })();
  if (!streamRequest) return;

  reply.hijack();
  const raw = reply.raw;
  const call = streaming.StreamTaskExecution(streamRequest, metadataOf(request.headers));
  let keepAlive: NodeJS.Timeout | undefined;
  const open = () => {
    if (raw.headersSent) return;
    raw.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no' });
    keepAlive = setInterval(() => raw.write(': keep-alive\n\n'), keepAliveMs);
  };
  call.on('metadata', open);
  call.on('data', (update: TaskUpdate__Output) => {
    open();
    // A live-only event (LLM_PARTIAL) has no id, so the browser's Last-Event-ID stays on the log.
    const id = update.stream_id ? `id: ${update.stream_id}\n` : '';
    raw.write(`${id}event: ${update.type}\ndata: ${eventData(route, update)}\n\n`);
  });
  whenStreamEnds(call, (taskEnded) => {
    open(); // a stream with nothing left to send is still an event stream
    clearInterval(keepAlive);
    // Shannon's clients stop reading at `done` rather than reconnecting to a finished task.
    raw.end(route.shannon && taskEnded ? 'event: done\ndata: [DONE]\n\n' : undefined);
  });
  call.on('error', (err: ServiceError) => {
    clearInterval(keepAlive);
    if (err.code === 1 /* CANCELLED: the client left */) return void raw.end();
    const { httpStatus, body } = httpErrorOf(fromGrpcFailure(err));
    if (!raw.headersSent) {
      raw.writeHead(httpStatus, { 'content-type': 'application/json' });
      raw.end(JSON.stringify(body));
      return;
    }
    raw.write(`event: error\ndata: ${JSON.stringify(body)}\n\n`);
    raw.end();
  });
  // The response closing before the stream ended means the client left.
  raw.on('close', () => {
    clearInterval(keepAlive);
    call.cancel();
  });
}
