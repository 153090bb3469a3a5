import { setTimeout } from 'node:timers/promises';
import { Client } from 'pg';
import { migrateDatabase } from '../core/db/migrate';

/**
 * A pool's end() resolves before the server has closed its connections: they are waited for (up to
 * 5 s) rather than killed by the drop, which the pool would report as lost connections.
 */
async function untilUnused(admin: Client, name: string): Promise<void> {
  for (let waited = 0; waited < 5_000; waited += 100) {
    const { rows } = await admin.query<{ open: number }>('SELECT count(*)::int AS open FROM pg_stat_activity WHERE datname = $1', [name]);
    if (rows[0]!.open === 0) return;
    await setTimeout(100);
  }
}

/**
 * Runs a benchmark against a freshly migrated scratch database on the DATABASE_URL server, dropped
 * afterwards whatever happens.
 */
export async function withScratchDatabase<T>(name: string, run: (databaseUrl: string) => Promise<T>): Promise<T> {
  const server = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  const scratch = new URL(server);
  scratch.pathname = `/${name}`;
  server.pathname = '/postgres';
  const admin = new Client({ connectionString: server.toString() });
  await admin.connect();
  const drop = () => admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await drop();
  try {
    await migrateDatabase(scratch.toString());
    return await run(scratch.toString());
  } finally {
    await untilUnused(admin, name);
    await drop();
    await admin.end();
  }
}
