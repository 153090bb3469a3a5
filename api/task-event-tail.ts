import type { Pool } from 'pg';
import type { EventFeed } from '../core/events/event-feed';
import { lastTaskEvent, listTaskEvents, type TaskEvent } from '../core/events/event-log';
import { EventType } from '../core/events/event-types';

export interface EventTailDeps {
  pool: Pool;
  events: EventFeed;
}

export const finalEventTypes: ReadonlySet<string> = new Set([EventType.WorkflowCompleted, EventType.WorkflowFailed, EventType.WorkflowCancelled]);
const pageSize = 500;
/** Readers re-read the log this often even without a notification, so a lost one only costs latency. */
const pollMs = 2_000;

/**
 * A task's events after sequence `after`, in order, from the durable log and then live as they are
 * appended, until the task's final event or until `signal` aborts. No gaps and no duplicates: each
 * round reads the log from the last sequence yielded.
 */
export async function* tailTaskEvents(deps: EventTailDeps, workflowId: string, after: number, signal: AbortSignal): AsyncGenerator<TaskEvent> {
  let wake: () => void = () => {};
  const onAbort = () => wake();
  signal.addEventListener('abort', onAbort);
  const unsubscribe = deps.events.subscribe(workflowId, () => wake());
  try {
    // Resuming at or past the final event: nothing more will ever come.
    const last = after > 0 ? await lastTaskEvent(deps.pool, workflowId) : undefined;
    if (last && finalEventTypes.has(last.type) && last.seq <= after) return;
    for (;;) {
      // Subscribed before reading: an append committed during the read wakes the next round.
      const woken = new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, pollMs).unref();
      });
      const events = await listTaskEvents(deps.pool, workflowId, after, pageSize);
      for (const event of events) {
        if (signal.aborted) return;
        yield event;
        after = event.seq;
        if (finalEventTypes.has(event.type)) return;
      }
      if (events.length === pageSize) continue;
      if (signal.aborted) return;
      await woken;
    }
  } finally {
    unsubscribe();
    signal.removeEventListener('abort', onAbort);
  }
}
