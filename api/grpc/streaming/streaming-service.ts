import { Metadata, type ServerWritableStream } from '@grpc/grpc-js';
import { authenticateCall } from '../callers';
import type { EventFeed } from '../../../core/events/event-feed';
import { isLiveOnly, type TaskEvent } from '../../../core/events/event-log';
import { EventType, shannonEventAliases, shannonOnlyEventTypes } from '../../../core/events/event-types';
import type { StreamRequest__Output } from '../../../protos/generated/shannon/orchestrator/StreamRequest';
import type { StreamingServiceHandlers } from '../../../protos/generated/shannon/orchestrator/StreamingService';
import type { TaskUpdate } from '../../../protos/generated/shannon/orchestrator/TaskUpdate';
import type { Authenticator } from '../../tasks/auth';
import { invalid } from '../../tasks/task-errors';
import { send, serverStream } from '../unary';
import { streamLifetime } from '../stream-lifetime';
import { toTimestamp } from '../struct';
import { tailTaskEvents } from '../../tasks/task-event-tail';
import { ownTaskOf, type TaskOwnershipDeps } from '../../tasks/task-ownership';

export interface StreamingDeps extends TaskOwnershipDeps {
  auth: Authenticator;
  events: EventFeed;
}

const knownTypes: ReadonlySet<string> = new Set([...Object.values(EventType), ...shannonOnlyEventTypes, ...Object.keys(shannonEventAliases)]);

/** Where a client resumes after this event; a live-only event has none (empty), as it is not in the log. */
function streamIdOf(event: TaskEvent): string {
  return isLiveOnly(event) ? '' : `${event.at.getTime()}-${event.seq}`;
}

// One update per event, whichever streams send it: the gRPC server then serializes it once.
const updates = new WeakMap<TaskEvent, TaskUpdate>();

function toUpdate(event: TaskEvent): TaskUpdate {
  const known = updates.get(event);
  if (known) return known;
  const update: TaskUpdate = {
    workflow_id: event.workflowId,
    type: event.type,
    agent_id: event.agentId,
    message: event.message,
    timestamp: toTimestamp(event.at),
    seq: String(event.seq),
    stream_id: streamIdOf(event),
  };
  updates.set(event, update);
  return update;
}

/** The sequence number to resume after: last_event_id, or the seq inside last_stream_id. */
function resumeAfter(request: StreamRequest__Output): number {
  let after = Number(request.last_event_id || 0);
  if (request.last_stream_id) {
    const match = /^\d+-(\d+)$/.exec(request.last_stream_id);
    if (!match) throw invalid(`last_stream_id must look like "1698765432000-42", got "${request.last_stream_id}"`);
    after = Math.max(after, Number(match[1]));
  }
  return after;
}

/** A trailer a stream ends with once the task's events are over, as opposed to a stream cut short (a client then resumes). */
export const taskEndedTrailer = 'weft-task-ended';
const taskEndedTrailers = () => {
  const trailers = new Metadata();
  trailers.set(taskEndedTrailer, 'true');
  return trailers;
};

export interface StreamingService {
  handlers: Partial<StreamingServiceHandlers>;
  /** Ends every open stream (clients resume with their last id); for a graceful shutdown. */
  endAll(): void;
  openCount(): number;
}

export function createStreamingService(deps: StreamingDeps): StreamingService {
  const open = new Set<AbortController>();

  async function stream(call: ServerWritableStream<StreamRequest__Output, TaskUpdate>): Promise<Metadata | void> {
    const principal = await authenticateCall(deps.auth, call.metadata);
    const request = call.request;
    if (!request.workflow_id) throw invalid('workflow_id is required');
    const unknown = request.types.filter((type) => !knownTypes.has(type));
    if (unknown.length > 0) throw invalid(`unknown event types: ${unknown.join(', ')}`);
    const after = resumeAfter(request);
    const { workflowId } = await ownTaskOf(deps, request.workflow_id, principal);

    const types = request.types.map((type) => shannonEventAliases[type] ?? type);
    const wanted = (event: TaskEvent) => types.length === 0 || types.includes(event.type);
    const lifetime = streamLifetime(call, deps.auth, principal, open);
    try {
      // Headers once the stream is live: a client (and the SSE gateway) then knows it is accepted and
      // that nothing appended from now on can be missed, even before the first event arrives.
      const live = () => call.sendMetadata(new Metadata());
      for await (const event of tailTaskEvents(deps, workflowId, after, lifetime.signal, live)) {
        if (wanted(event)) await send(call, toUpdate(event));
      }
      lifetime.throwIfKeyRevoked();
      // The tail ends at the task's final event or when the stream is cut (shutdown, client gone).
      if (!lifetime.signal.aborted) return taskEndedTrailers();
    } finally {
      lifetime.release();
    }
  }

  return {
    handlers: {
      StreamTaskExecution: serverStream(stream),
    },
    endAll: () => {
      for (const ending of open) ending.abort();
    },
    openCount: () => open.size,
  };
}
