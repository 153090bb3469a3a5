import { listenFor } from '../db/notification-listener';
import { eventChannel, eventFromNotification, type TaskEvent } from './event-log';
import { log as logger } from '../telemetry/logger';

/** Tells readers of a task's event log about each append that commits (Postgres LISTEN/NOTIFY). */
export interface EventFeed {
  /**
   * Calls `appended` after every committed append to the workflow's log, with the event when the
   * notification could carry it (otherwise the reader reads the log); returns the unsubscribe.
   */
  subscribe(workflowId: string, appended: (event: TaskEvent | undefined) => void): () => void;
  close(): Promise<void>;
}

export async function startEventFeed(databaseUrl: string, log: (line: string) => void = (line) => logger().warn(line)): Promise<EventFeed> {
  const listeners = new Map<string, Set<(event: TaskEvent | undefined) => void>>();
  const listening = await listenFor(
    databaseUrl,
    eventChannel,
    {
      notified(payload) {
        const { workflowId, event } = eventFromNotification(payload || '{}');
        for (const appended of listeners.get(workflowId) ?? []) appended(event);
      },
      // Appends notified while the connection was down are lost: every reader reads its log.
      reconnected() {
        for (const set of listeners.values()) for (const appended of set) appended(undefined);
      },
    },
    log,
  );
  return {
    subscribe(workflowId, appended) {
      const set = listeners.get(workflowId) ?? new Set();
      set.add(appended);
      listeners.set(workflowId, set);
      return () => {
        set.delete(appended);
        if (set.size === 0) listeners.delete(workflowId);
      };
    },
    close: () => listening.close(),
  };
}
