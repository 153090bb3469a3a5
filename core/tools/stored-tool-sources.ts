import { Client } from 'pg';
import { listToolSources, toolSourcesChannel, type StoredToolSource } from './tool-source-store';
import type { ToolSource, ToolSources } from './tool-sources';

/**
 * Keeps `sources` in step with the tool sources stored in Postgres: loads them now and again after
 * every change notification (and on reconnect), adding new ones and removing deleted ones.
 */
export async function followStoredToolSources(
  databaseUrl: string,
  sources: ToolSources,
  toSource: (stored: StoredToolSource) => ToolSource,
  log: (line: string) => void,
): Promise<{ close(): Promise<void> }> {
  const followed = new Set<string>();
  const client = new Client({ connectionString: databaseUrl });
  let syncing: Promise<void> = Promise.resolve();
  const sync = () => {
    syncing = syncing.then(async () => {
      const stored = new Map((await listToolSources(client)).map((source) => [`${source.kind}:${source.name}`, source]));
      for (const [key, source] of stored) {
        if (followed.has(key) || sources.keys().includes(key)) continue;
        followed.add(key);
        sources.add(toSource(source));
      }
      for (const key of [...followed].filter((key) => !stored.has(key))) {
        followed.delete(key);
        await sources.remove(key);
      }
    });
    syncing.catch((err: unknown) => log(`tool sources: reading the stored ones failed: ${(err as Error).message}`));
    return syncing;
  };
  client.on('error', (err) => log(`tool sources: connection lost: ${err.message}`));
  client.on('notification', () => void sync().catch(() => {}));
  await client.connect();
  await client.query(`LISTEN ${toolSourcesChannel}`);
  await sync();
  return {
    close: async () => {
      await syncing.catch(() => {});
      await client.end();
    },
  };
}
