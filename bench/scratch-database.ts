import { Client } from 'pg';
import { migrateDatabase } from '../core/db/migrate';

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
    await drop();
    await admin.end();
  }
}
