import type { Pool, PoolClient } from 'pg';

/** Anything that can run a query: the pool or a client inside a transaction. */
export type Queryable = Pick<PoolClient, 'query'>;

/** Runs `work` in one transaction: commit on success, rollback and rethrow on any error. */
export async function withTransaction<T>(pool: Pool, work: (tx: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {
      // The original error matters more; a failed rollback means the connection is gone anyway.
    });
    throw err;
  } finally {
    client.release();
  }
}
