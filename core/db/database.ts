import { Client, Pool } from 'pg';
import { log } from '../telemetry/logger';

export function createPool(databaseUrl: string, max = 10): Pool {
  const pool = new Pool({ connectionString: databaseUrl, max });
  // An idle client dies when Postgres restarts or kills it; the pool replaces it on next use.
  // Without a listener that 'error' event would crash the whole process.
  pool.on('error', (err) => log().error({ err }, 'postgres: idle connection lost'));
  return pool;
}

/** Creates the database named in the URL when it does not exist yet (first start on a machine). */
export async function ensureDatabase(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!name) throw new Error(`DATABASE_URL names no database: ${redactUrl(databaseUrl)}`);
  url.pathname = '/postgres';
  const admin = new Client({ connectionString: url.toString() });
  await admin.connect();
  try {
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) {
      await admin.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`).catch((err: { code?: string }) => {
        // Another process may have created it between our check and CREATE.
        if (err.code !== '42P04') throw err;
      });
    }
  } finally {
    await admin.end();
  }
}

/** A URL safe to print: the password is masked. */
export function redactUrl(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  if (url.password) url.password = '***';
  return url.toString();
}
