import type { Pool, PoolClient } from 'pg';
import { withTransaction } from '../db/transaction';

// Races the store settles by running the loser again: two identical starts inserting the same run
// (unique violation), or lock-order accidents (deadlock). On its second pass the loser sees the
// winner's row and takes the exact-retry or conflict path.
const retryableCodes = new Set(['23505', '40P01', '40001']);
const maxAttempts = 4;

export async function storeTransaction<T>(pool: Pool, work: (tx: PoolClient) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await withTransaction(pool, work);
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (attempt >= maxAttempts || !code || !retryableCodes.has(code)) throw err;
    }
  }
}
