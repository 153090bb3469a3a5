import type { Pool, PoolClient } from 'pg';

/** Anything that can run a query: the pool or a client inside a transaction. */
export type Queryable = Pick<PoolClient, 'query'>;

/**
 * Runs `work` in one transaction: commit on success, rollback and rethrow on any error.
 *
 * The pool's clients pipeline (core/db/database.ts), so BEGIN is not a round trip of its own: it
 * goes out with the work's first statement, and Postgres answers them in order. BEGIN fails only
 * on a connection that is failing, and then every statement behind it fails too, so the work's
 * error is the one thrown; BEGIN's own is thrown if the work somehow succeeded without it.
 *
 * Statements run in the order they are sent. The work sends several at once by calling the
 * functions that write them together (Promise.all): each sends its first statement when it is
 * called, before it awaits anything, so they run in the order called.
 */
export async function withTransaction<T>(pool: Pool, work: (tx: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  const begun = client.query('BEGIN').then(
    () => undefined,
    (err: unknown) => err,
  );
  try {
    const result = await work(client);
    const beginError = await begun;
    if (beginError) throw beginError;
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
