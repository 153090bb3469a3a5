import type { Pool, PoolClient, QueryResult } from 'pg';

/** Anything that can run a query: the pool or a client inside a transaction. */
export type Queryable = Pick<PoolClient, 'query'>;

/** The clients of open transactions, and the answer to the COMMIT their work sent (commitWith). */
const openTransactions = new WeakMap<Queryable, { commit?: Promise<QueryResult> }>();

/** True once the transaction this client runs has sent its COMMIT: nothing more may be sent in it. */
export const hasSentCommit = (client: Queryable): boolean => openTransactions.get(client)?.commit !== undefined;

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
 * called, before it awaits anything, so they run in the order called. The work may end the
 * transaction itself with its last statements (commitWith), saving the COMMIT's round trip.
 */
export async function withTransaction<T>(pool: Pool, work: (tx: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  const transaction: { commit?: Promise<QueryResult> } = {};
  openTransactions.set(client, transaction);
  const begun = client.query('BEGIN').then(
    () => undefined,
    (err: unknown) => err,
  );
  try {
    const result = await work(client);
    const beginError = await begun;
    if (beginError) throw beginError;
    await (transaction.commit ?? client.query('COMMIT'));
    return result;
  } catch (err) {
    // A COMMIT the work sent ends the transaction either way (Postgres turns it into a rollback
    // behind a failed statement): the connection goes back to the pool once it has answered.
    await (transaction.commit ?? client.query('ROLLBACK')).catch(() => {
      // The original error matters more; a failed rollback means the connection is gone anyway.
    });
    throw err;
  } finally {
    openTransactions.delete(client);
    client.release();
  }
}

/**
 * Ends the transaction `tx` runs with `last`, its work's last statements: COMMIT goes out right
 * behind them, without waiting for their answers, which saves the change a round trip. `last`
 * must have sent all of its statements already: pass, together (Promise.all), the calls of writers
 * that send every statement when called, without waiting for an answer first. Postgres commits
 * only when every statement succeeded; behind a failed one, the COMMIT rolls the whole transaction
 * back and that statement's error is thrown. A statement sent in the transaction afterwards is
 * refused (pipelined-client.ts).
 */
export async function commitWith<T>(tx: Queryable, last: Promise<T>): Promise<T> {
  const transaction = openTransactions.get(tx);
  if (!transaction) throw new Error('commitWith ends a transaction: call it with the client withTransaction gave the work');
  if (transaction.commit) throw new Error('this transaction has already sent its COMMIT');
  const commit = tx.query('COMMIT');
  transaction.commit = commit;
  const [result, answer] = await Promise.all([last, commit]);
  // COMMIT answers ROLLBACK when the transaction had failed before (a statement's error caught and dropped).
  if (answer.command !== 'COMMIT') throw new Error(`the transaction was rolled back: its COMMIT answered ${answer.command}`);
  return result;
}
