import path from 'node:path';
import { Client } from 'pg';
import { ensureDatabase } from './database';

const migrationsDir = path.resolve(__dirname, '../../infra/migrations');

/** Weft's migration lock (a Postgres advisory lock key): held for the whole run of the migrator. */
const migrationLockKey = 0x77656674; // 'weft'

/**
 * Creates the database if needed and applies every pending versioned migration (node-pg-migrate).
 * Every starter (API, worker, `npm run migrate`) waits for Weft's advisory lock first, so the
 * migrations run once and a second starter finds nothing pending; node-pg-migrate's own lock only
 * tries once, and a starter that lost the race would fail ("Another migration is already running").
 */
export async function migrateDatabase(databaseUrl: string, log: (line: string) => void = () => {}): Promise<void> {
  await ensureDatabase(databaseUrl);
  // node-pg-migrate is ESM-only; a dynamic import keeps this CommonJS project loading it lazily.
  const { runner } = await import('node-pg-migrate');
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    // A session lock: released when this connection ends, also if the process dies.
    await client.query('SELECT pg_advisory_lock($1)', [migrationLockKey]);
    const applied = await runner({
      dbClient: client,
      dir: migrationsDir,
      direction: 'up',
      migrationsTable: 'weft_migrations',
      count: Infinity,
      checkOrder: true,
      noLock: true,
      log: () => {},
    });
    for (const migration of applied) log(`applied migration ${migration.name}`);
  } finally {
    await client.end();
  }
}
