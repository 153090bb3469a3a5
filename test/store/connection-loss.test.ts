import { once } from 'node:events';
import { Client } from 'pg';
import { createPool } from '../../core/db/database';
import { withTransaction } from '../../core/db/transaction';

// Postgres ends every session when it restarts or crashes. A session a transaction holds (the pool
// has lent it out, between two statements) must fail that transaction, not the process: pg emits
// 'error' on the client, and the pool listens for it only while the client is idle.

const pool = createPool(process.env.DATABASE_URL!);

afterAll(() => pool.end());

async function terminate(pid: number): Promise<void> {
  const admin = new Client({ connectionString: process.env.DATABASE_URL! });
  await admin.connect();
  try {
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
  } finally {
    await admin.end();
  }
}

it('a session lost while a transaction holds it fails that transaction; the process and the pool go on', async () => {
  const lost = withTransaction(pool, async (tx) => {
    const { rows } = await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const ended = once(tx as unknown as NodeJS.EventEmitter, 'end');
    await terminate(rows[0]!.pid);
    await ended; // the session is gone while no statement of ours is running
    return tx.query('SELECT 1');
  });
  await expect(lost).rejects.toThrow(/terminat|not queryable/i);
  const { rows } = await pool.query<{ one: number }>('SELECT 1 AS one');
  expect(rows).toEqual([{ one: 1 }]);
});
