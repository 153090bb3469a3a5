import type { Pool } from 'pg';
import type { EventFeed } from '../../core/events/event-feed';
import { isLiveOnly, lastTaskEvent, listTaskEvents, type TaskEvent } from '../../core/events/event-log';
import { EventType } from '../../core/events/event-types';

export interface EventTailDeps {
  pool: Pool;
  events: EventFeed;
}

export const finalEventTypes: ReadonlySet<string> = new Set([EventType.WorkflowCompleted, EventType.WorkflowFailed, EventType.WorkflowCancelled]);

/**
 * Whether a task's log has ended once `event` is read, given whether it had before: a final event
 * ends it; text a model step was still streaming when the task ended may be recorded after the end
 * and leaves it ended; anything else after the end (a Temporal reset reopened the task) reopens it.
 */
export const endedAfter = (ended: boolean, event: Pick<TaskEvent, 'type'>): boolean =>
  finalEventTypes.has(event.type) || (ended && event.type === EventType.LlmPartial);
const pageSize = 500;
/**
 * Readers re-read the log this often even without a notification: a safety net only, as the feed
 * wakes every reader when its connection comes back.
 */
const pollMs = 30_000;

/**
 * Streams of the same task usually ask for the same page at the same moment (one notification wakes
 * them all): identical reads in flight share one query. Only a read that started after the caller
 * was woken may be shared; an older one may have missed the append that woke it.
 */
const readsInFlight = new Map<string, { startedAt: number; events: Promise<TaskEvent[]> }>();

function readEvents(pool: Pool, workflowId: string, after: number, wokenAt: number): Promise<TaskEvent[]> {
  const key = `${after}:${workflowId}`;
  const shared = readsInFlight.get(key);
  if (shared && shared.startedAt >= wokenAt) return shared.events;
  const read = { startedAt: performance.now(), events: listTaskEvents(pool, workflowId, after, pageSize) };
  readsInFlight.set(key, read);
  // Forgotten once settled either way; a failed read is its readers' error (they await it), not another unhandled one.
  const forget = () => {
    if (readsInFlight.get(key) === read) readsInFlight.delete(key);
  };
  read.events.then(forget, forget);
  return read.events;
}

/** The notified events that continue the sequence right after `after`, or undefined when there is a gap. */
function continuing(notified: TaskEvent[], after: number): TaskEvent[] | undefined {
  const next = notified.filter((e) => e.seq > after).sort((a, b) => a.seq - b.seq);
  return next.every((event, i) => event.seq === after + 1 + i) ? next : undefined;
}

/**
 * A task's events after sequence `after`, in order, from the durable log and then live as they are
 * appended, until the task's final event (its last: a reset may reopen a finished task) or until
 * `signal` aborts. No gaps and no duplicates: live events come from the append notifications while
 * they continue the sequence exactly; otherwise
 * (a gap, a notification too large to carry its event, the periodic safety re-read) the log is read
 * from the last sequence yielded. Live-only events (seq 0, not in the log) are passed on as they come
 * while the tail is connected; they do not move its place in the log.
 */
export async function* tailTaskEvents(
  deps: EventTailDeps,
  workflowId: string,
  after: number,
  signal: AbortSignal,
  /** Called once the tail listens for appends and has read the log once: from then on it is live. */
  onLive?: () => void,
): AsyncGenerator<TaskEvent> {
  let wake: () => void = () => {};
  let wokenAt = performance.now();
  let notified: TaskEvent[] = [];
  let liveOnly: TaskEvent[] = [];
  let mustRead = true;
  // Read once per abort, not per event: `aborted` of a combined signal is recomputed on each read.
  let aborted = signal.aborted;
  const onAbort = () => {
    aborted = true;
    wake();
  };
  signal.addEventListener('abort', onAbort);
  const unsubscribe = deps.events.subscribe(workflowId, (event) => {
    if (event && isLiveOnly(event)) {
      liveOnly.push(event);
      wake();
      return;
    }
    if (event) notified.push(event);
    else mustRead = true;
    wokenAt = performance.now();
    wake();
  });
  try {
    // Resuming at or past the final event: nothing more will ever come.
    const last = after > 0 ? await lastTaskEvent(deps.pool, workflowId) : undefined;
    if (last && finalEventTypes.has(last.type) && last.seq <= after) return;
    let atFinal = false;
    for (;;) {
      // Subscribed before reading: an append committed during the read wakes the next round.
      let poll: NodeJS.Timeout | undefined;
      const woken = new Promise<void>((resolve) => {
        wake = resolve;
        poll = setTimeout(() => {
          mustRead = true;
          resolve();
        }, pollMs).unref();
      }).finally(() => clearTimeout(poll));
      const live = mustRead ? undefined : continuing(notified, after);
      notified = [];
      if (!live) mustRead = false;
      const events = live ?? (await readEvents(deps.pool, workflowId, after, wokenAt));
      onLive?.();
      onLive = undefined;
      for (const event of events) {
        if (aborted) return;
        yield event;
        after = event.seq;
        atFinal = endedAfter(atFinal, event);
      }
      // The final event ends the stream, unless the log goes on past it: a Temporal reset reopened the task.
      if (atFinal && events.length < pageSize) return;
      const passing = liveOnly;
      liveOnly = [];
      for (const event of passing) {
        if (aborted) return;
        yield event;
      }
      if (aborted) return;
      // A full page means more is waiting: read again at once.
      if (events.length === pageSize) {
        mustRead = true;
        wake();
      }
      await woken;
    }
  } finally {
    unsubscribe();
    signal.removeEventListener('abort', onAbort);
  }
}
