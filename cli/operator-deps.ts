import { Client, Connection } from '@temporalio/client';
import type { Pool } from 'pg';
import { loadConfig } from '../core/config';
import { createPool } from '../core/db/database';
import { createRuntimeStore, type RuntimeStore } from '../core/store';

// Operators' commands (keys, verify, fork) work on the deployment itself: its database
// (DATABASE_URL) and its Temporal namespace, not through the API.

export interface OperatorDeps {
  pool: Pool;
  store: RuntimeStore;
  temporal: Client;
  taskQueue: string;
}

/** Runs one key operation on a one-connection pool. */
export async function withDatabase<T>(work: (pool: Pool) => Promise<T>): Promise<T> {
  const pool = createPool(loadConfig().databaseUrl, { size: 1 });
  try {
    return await work(pool);
  } finally {
    await pool.end();
  }
}

/** Runs `work` with a client of Temporal: the configured one, or the address and namespace given. */
export async function withTemporal<T>(options: { address?: string; namespace?: string }, work: (client: Client) => Promise<T>): Promise<T> {
  const { temporal } = loadConfig();
  const connection = await Connection.connect({ ...temporal.connection, ...(options.address ? { address: options.address } : {}) });
  try {
    return await work(new Client({ connection, namespace: options.namespace ?? temporal.namespace }));
  } finally {
    await connection.close();
  }
}

/** What an operator's command reads and starts: the database, the store and Temporal, closed after `work`. */
export async function withOperatorDeps<T>(work: (deps: OperatorDeps) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const pool = createPool(config.databaseUrl, { size: 2 });
  try {
    return await withTemporal({}, (temporal) => work({ pool, store: createRuntimeStore(pool), temporal, taskQueue: config.temporal.taskQueue }));
  } finally {
    await pool.end();
  }
}
