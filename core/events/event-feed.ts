import { Client } from 'pg';
import { eventChannel, eventFromNotification, type TaskEvent } from './event-log';

/** Tells readers of a task's event log about each append that commits (Postgres LISTEN/NOTIFY). */
export interface EventFeed {
  /**
   * Calls `appended` after every committed append to the workflow's log, with the event when the
   * notification could carry it (otherwise the reader reads the log); returns the unsubscribe.
   */
  subscribe(workflowId: string, appended: (event: TaskEvent | undefined) => void): () => void;
  close(): Promise<void>;
}

export async function startEventFeed(databaseUrl: string, log: (line: string) => void = console.error): Promise<EventFeed> {
  const listeners = new Map<string, Set<(event: TaskEvent | undefined) => void>>();
  const client = new Client({ connectionString: databaseUrl });
  // A lost connection only costs latency: readers also re-read their log on a short timer.
  client.on('error', (err) => log(`event feed: connection lost: ${err.message}`));
  client.on('notification', (message) => {
    const { workflowId, event } = eventFromNotification(message.payload ?? '{}');
    for (const appended of listeners.get(workflowId) ?? []) appended(event);
  });
  await client.connect();
  await client.query(`LISTEN ${eventChannel}`);
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
    close: () => client.end(),
  };
}
