import type { ServerWritableStream, ServiceError } from '@grpc/grpc-js';
import type { Pool } from 'pg';
import type { EventFeed } from '../core/events/event-feed';
import { listTaskEvents, type TaskEvent } from '../core/events/event-log';
import { EventType } from '../core/events/event-types';
import type { StreamRequest__Output } from '../protos/generated/shannon/orchestrator/StreamRequest';
import type { StreamingServiceHandlers } from '../protos/generated/shannon/orchestrator/StreamingService';
import type { TaskUpdate } from '../protos/generated/shannon/orchestrator/TaskUpdate';
import type { Authenticator } from './auth';
import { invalidArgument, toServiceError } from './grpc-errors';
import { toTimestamp } from './struct';
import { ownTaskOf } from './task-ownership';
import type { Client } from '@temporalio/client';

export interface StreamingDeps {
  pool: Pool;
  temporal: Client;
  auth: Authenticator;
  events: EventFeed;
}

const finalTypes: ReadonlySet<string> = new Set([EventType.WorkflowCompleted, EventType.WorkflowFailed, EventType.WorkflowCancelled]);
const knownTypes: ReadonlySet<string> = new Set(Object.values(EventType));
const pageSize = 500;
/** Readers re-read the log this often even without a notification, so a lost one only costs latency. */
const pollMs = 2_000;

function streamIdOf(event: TaskEvent): string {
  return `${event.at.getTime()}-${event.seq}`;
}

function toUpdate(event: TaskEvent): TaskUpdate {
  return {
    workflow_id: event.workflowId,
    type: event.type,
    agent_id: event.agentId,
    message: event.message,
    timestamp: toTimestamp(event.at),
    seq: String(event.seq),
    stream_id: streamIdOf(event),
  };
}

/** The sequence number to resume after: last_event_id, or the seq inside last_stream_id. */
function resumeAfter(request: StreamRequest__Output): number {
  let after = Number(request.last_event_id || 0);
  if (request.last_stream_id) {
    const match = /^\d+-(\d+)$/.exec(request.last_stream_id);
    if (!match) throw invalidArgument(`last_stream_id must look like "1698765432000-42", got "${request.last_stream_id}"`);
    after = Math.max(after, Number(match[1]));
  }
  return after;
}

function write(call: ServerWritableStream<StreamRequest__Output, TaskUpdate>, update: TaskUpdate): Promise<void> {
  if (call.write(update)) return Promise.resolve();
  return new Promise((resolve) => call.once('drain', () => resolve()));
}

export interface StreamingService {
  handlers: Partial<StreamingServiceHandlers>;
  /** Ends every open stream (clients resume with their last id); for a graceful shutdown. */
  endAll(): void;
}

export function createStreamingService(deps: StreamingDeps): StreamingService {
  const open = new Set<() => void>();

  async function stream(call: ServerWritableStream<StreamRequest__Output, TaskUpdate>): Promise<void> {
    const principal = await deps.auth.authenticate(call.metadata);
    const request = call.request;
    if (!request.workflow_id) throw invalidArgument('workflow_id is required');
    const unknown = request.types.filter((type) => !knownTypes.has(type));
    if (unknown.length > 0) throw invalidArgument(`unknown event types: ${unknown.join(', ')}`);
    let after = resumeAfter(request);
    await ownTaskOf(deps, request.workflow_id, principal);

    const wanted = (event: TaskEvent) => request.types.length === 0 || request.types.includes(event.type);
    let wake: () => void = () => {};
    let ending = false;
    const stop = () => {
      ending = true;
      wake();
    };
    open.add(stop);
    call.on('cancelled', stop);
    const unsubscribe = deps.events.subscribe(request.workflow_id, () => wake());
    try {
      for (;;) {
        // Subscribed before reading: an append committed during the read wakes the next round.
        const woken = new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, pollMs).unref();
        });
        const events = await listTaskEvents(deps.pool, request.workflow_id, after, pageSize);
        for (const event of events) {
          if (ending) return;
          if (wanted(event)) await write(call, toUpdate(event));
          after = event.seq;
          if (finalTypes.has(event.type)) return;
        }
        if (events.length === pageSize) continue;
        if (ending) return;
        await woken;
      }
    } finally {
      unsubscribe();
      open.delete(stop);
    }
  }

  return {
    handlers: {
      StreamTaskExecution: (call: ServerWritableStream<StreamRequest__Output, TaskUpdate>) => {
        stream(call).then(
          () => call.end(),
          (err: unknown) => call.emit('error', toServiceError(err, (line) => console.error(line)) as ServiceError),
        );
      },
    },
    endAll: () => {
      for (const stop of open) stop();
    },
  };
}
