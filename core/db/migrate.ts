import path from 'node:path';
import { ensureDatabase } from './database';

const migrationsDir = path.resolve(__dirname, '../../infra/migrations');

/**
 * Creates the database if needed and applies every pending versioned migration (node-pg-migrate,
 * which takes an advisory lock, so concurrent starters are safe).
 */
export async function migrateDatabase(databaseUrl: string, log: (line: string) => void = () => {}): Promise<void> {
  await ensureDatabase(databaseUrl);
  // node-pg-migrate is ESM-only; a dynamic import keeps this CommonJS project loading it lazily.
  const { runner } = await import('node-pg-migrate');
  const applied = await runner({
    databaseUrl,
    dir: migrationsDir,
    direction: 'up',
    migrationsTable: 'weft_migrations',
    count: Infinity,
    checkOrder: true,
    log: () => {},
  });
  for (const migration of applied) log(`applied migration ${migration.name}`);
}
