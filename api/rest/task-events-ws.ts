import type { ServiceError } from '@grpc/grpc-js';
import type { FastifyRequest } from 'fastify';
import type { WebSocket } from '@fastify/websocket';
import type { ServiceClient } from '../../protos/clients';
import type { TaskUpdate__Output } from '../../protos/generated/shannon/orchestrator/TaskUpdate';
import { fromGrpcFailure } from '../grpc/grpc-errors';
import { metadataOf } from './http-mapping';
import { httpErrorOf } from '../http/http-errors';
import type { StreamRoute } from './routes';
import { eventData, streamRequestOf, whenStreamEnds } from './sse';

// A task's events over a WebSocket (Shannon's /api/v1/stream/ws): the same StreamTaskExecution
// and the same event JSON as the SSE stream, one message each, resumable with last_event_id. The
// socket closes normally (1000) once the task's events are over; a failure is sent as the
// gateway's error body, then closes with 4000 + its HTTP status.

const closeWith = (socket: WebSocket, err: unknown) => {
  const { httpStatus, body } = httpErrorOf(fromGrpcFailure(err));
  socket.send(JSON.stringify(body));
  socket.close(4000 + httpStatus, body.code);
};

export function serveTaskEventsOverWebSocket(
  route: StreamRoute,
  streaming: ServiceClient<'streaming'>,
  keepAliveMs: number,
  socket: WebSocket,
  request: FastifyRequest<{ Params: Record<string, string>; Querystring: Record<string, unknown> }>,
): void {
  let streamRequest;
  try {
    streamRequest = streamRequestOf(route, request);
  } catch (err) {
    return closeWith(socket, err);
  }
  const call = streaming.StreamTaskExecution(streamRequest, metadataOf(request.headers));
  // Pings keep idle sockets open through proxies.
  const keepAlive = setInterval(() => socket.ping(), keepAliveMs);
  call.on('data', (update: TaskUpdate__Output) => socket.send(eventData(route, update)));
  whenStreamEnds(call, (taskEnded) => {
    clearInterval(keepAlive);
    // A stream cut short (not the task's end) closes as "going away", so the client reconnects.
    socket.close(taskEnded ? 1000 : 1001, 'done');
  });
  call.on('error', (err: ServiceError) => {
    clearInterval(keepAlive);
    if (err.code !== 1 /* CANCELLED: the client left */) closeWith(socket, err);
  });
  socket.on('close', () => {
    clearInterval(keepAlive);
    call.cancel();
  });
}
