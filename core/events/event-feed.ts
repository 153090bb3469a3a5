import { Client } from 'pg';
import { eventChannel } from './event-log';

/** Wakes readers of a task's event log when an append to it commits (Postgres LISTEN/NOTIFY). */
export interface EventFeed {
  /** Calls `wake` after every committed append to the workflow's log; returns the unsubscribe. */
  subscribe(workflowId: string, wake: () => void): () => void;
  close(): Promise<void>;
}

export async function startEventFeed(databaseUrl: string, log: (line: string) => void = console.error): Promise<EventFeed> {
  const listeners = new Map<string, Set<() => void>>();
  const client = new Client({ connectionString: databaseUrl });
  // A lost connection only costs latency: readers also re-read their log on a short timer.
  client.on('error', (err) => log(`event feed: connection lost: ${err.message}`));
  client.on('notification', (message) => {
    const payload = message.payload ?? '';
    const workflowId = payload.slice(0, payload.lastIndexOf(':'));
    for (const wake of listeners.get(workflowId) ?? []) wake();
  });
  await client.connect();
  await client.query(`LISTEN ${eventChannel}`);
  return {
    subscribe(workflowId, wake) {
      const set = listeners.get(workflowId) ?? new Set();
      set.add(wake);
      listeners.set(workflowId, set);
      return () => {
        set.delete(wake);
        if (set.size === 0) listeners.delete(workflowId);
      };
    },
    close: () => client.end(),
  };
}
