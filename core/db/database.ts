import { Client, Pool } from 'pg';
import { log } from '../telemetry/logger';
import type { PoolSettings } from '../capacity-settings';
import { PipelinedClient } from './pipelined-client';

/** A connection pool (WEFT_DB_POOL_SIZE and the timeouts in a process; a script names its size). */
export function createPool(databaseUrl: string, settings: Partial<PoolSettings> = {}): Pool {
  const pool = new Pool({
    connectionString: databaseUrl,
    Client: PipelinedClient,
    // A statement is sent without waiting for the answer to the one before it (pg's pipeline
    // mode): a transaction's BEGIN travels with its first statement, and the statements of one
    // change that do not depend on each other's answers go out together (see withTransaction),
    // in one socket write (pipelined-client.ts).
    pipeline: true,
    max: settings.size ?? 10,
    // Unset: pg's defaults (wait as long as it takes for a connection; idle ones close after 10 s).
    ...(settings.connectTimeoutMs !== undefined ? { connectionTimeoutMillis: settings.connectTimeoutMs } : {}),
    ...(settings.idleTimeoutMs !== undefined ? { idleTimeoutMillis: settings.idleTimeoutMs } : {}),
  });
  // A session dies when Postgres restarts, crashes or ends it, and pg emits 'error' on its client,
  // idle or lent out. pg-pool listens only while a client is idle (and re-emits that on the pool):
  // without a listener of the client's own, a session lost while a transaction holds it would
  // crash the process. The statements in flight and any sent later fail with the error (so the
  // transaction fails), and the pool drops the client when it comes back.
  pool.on('connect', (client) => client.on('error', (err) => log().error({ err }, 'postgres: connection lost')));
  pool.on('error', () => {
    // An idle client's loss, already logged by the client's own listener; the pool replaces it on next use.
  });
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
    // Starters creating the same database at once would race between the check and CREATE (one
    // loses with a unique violation on pg_database), so they take turns: a session lock per name.
    await admin.query('SELECT pg_advisory_lock(hashtext($1))', [`weft create database ${name}`]);
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) await admin.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
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
