import type { Pool } from 'pg';
import { listenFor } from '../db/notification-listener';
import { listToolSources, toolSourceKey, toolSourcesChannel, type StoredToolSource } from './tool-source-store';
import type { ToolSource, ToolSources } from './tool-sources';

/**
 * Keeps `sources` in step with the tool sources stored in Postgres: loads them now and again after
 * every change notification (and on reconnect), adding new ones and removing deleted ones.
 */
export async function followStoredToolSources(
  databaseUrl: string,
  pool: Pool,
  sources: ToolSources,
  toSource: (stored: StoredToolSource) => ToolSource,
  log: (line: string) => void,
): Promise<{ close(): Promise<void> }> {
  const followed = new Set<string>();
  let syncing: Promise<void> = Promise.resolve();
  const sync = () => {
    syncing = syncing
      .then(async () => {
        const stored = new Map((await listToolSources(pool)).map((source) => [toolSourceKey(source.kind, source.name), source]));
        for (const [key, source] of stored) {
          if (followed.has(key) || sources.keys().includes(key)) continue;
          followed.add(key);
          sources.add(toSource(source));
        }
        for (const key of [...followed].filter((key) => !stored.has(key))) {
          followed.delete(key);
          await sources.remove(key);
        }
      })
      .catch((err: unknown) => log(`tool sources: reading the stored ones failed: ${(err as Error).message}`));
    return syncing;
  };
  const listening = await listenFor(databaseUrl, toolSourcesChannel, { notified: () => void sync(), reconnected: () => void sync() }, log);
  await sync();
  return {
    close: async () => {
      await listening.close();
      await syncing;
    },
  };
}
