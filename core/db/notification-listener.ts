import { Client } from 'pg';

// A Postgres LISTEN that survives its connection: when the connection drops it is opened again
// (with growing pauses), the channel listened to again, and `reconnected` called, since whatever
// was notified meanwhile is lost and readers must look for themselves.

export interface NotificationHandlers {
  notified(payload: string): void;
  reconnected(): void;
}

const pauseMs = { first: 100, max: 5_000 };

export async function listenFor(
  databaseUrl: string,
  channel: string,
  handlers: NotificationHandlers,
  log: (line: string) => void,
): Promise<{ close(): Promise<void> }> {
  let client: Client | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;

  const connect = async (): Promise<void> => {
    const fresh = new Client({ connectionString: databaseUrl });
    // Only a connection that was listening starts a reconnection when lost: an attempt that fails
    // is retried by whoever made it, so there is never more than one chain of attempts.
    let listening = false;
    const onLost = (why: string) => {
      if (!listening || closed) return;
      listening = false;
      log(`${channel}: connection lost (${why}); listening again`);
      void fresh.end().catch(() => {});
      reconnect(pauseMs.first);
    };
    fresh.on('error', (err) => onLost(err.message));
    fresh.on('end', () => onLost('ended'));
    fresh.on('notification', (message) => handlers.notified(message.payload ?? ''));
    try {
      await fresh.connect();
      await fresh.query(`LISTEN ${channel}`);
    } catch (err) {
      void fresh.end().catch(() => {});
      throw err;
    }
    listening = true;
    client = fresh;
  };

  const reconnect = (waitMs: number) => {
    retry = setTimeout(() => {
      connect().then(
        () => handlers.reconnected(),
        (err: unknown) => {
          if (closed) return;
          log(`${channel}: cannot listen yet (${(err as Error).message}); trying again in ${waitMs} ms`);
          reconnect(Math.min(waitMs * 2, pauseMs.max));
        },
      );
    }, waitMs);
    retry.unref();
  };

  await connect();
  return {
    async close() {
      closed = true;
      clearTimeout(retry);
      await client?.end();
    },
  };
}
