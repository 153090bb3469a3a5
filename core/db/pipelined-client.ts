import type { Writable } from 'node:stream';
import { PreparingClient } from './prepared-statements';
import { hasSentCommit } from './transaction';

// The pool's clients pipeline (database.ts): a statement goes out without waiting for the answer
// to the one before. pg still writes each statement to the socket on its own, and on this kind of
// machine a socket write (waking Postgres) is one of the largest costs of a statement in the
// worker. The statements one tick sends (a BEGIN and the first statement behind it, a change's
// independent statements) are therefore held back until the tick ends and written at once.

type ConnectedClient = { connection?: { stream?: Writable } };

/** pg's client as the pool runs it: named prepared statements, and one socket write per tick. */
export class PipelinedClient extends PreparingClient {
  private holding = false;

  override query(...args: unknown[]): never {
    // Behind a COMMIT sent with the last statements (commitWith), it would run outside the transaction.
    if (hasSentCommit(this))
      return Promise.reject(new Error("a statement sent after its transaction's COMMIT (commitWith): it would not be part of the transaction")) as never;
    this.holdWritesUntilTickEnds();
    return super.query(...args);
  }

  private holdWritesUntilTickEnds(): void {
    const stream = (this as unknown as ConnectedClient).connection?.stream;
    if (this.holding || !stream) return;
    this.holding = true;
    stream.cork();
    process.nextTick(() => {
      this.holding = false;
      stream.uncork();
    });
  }
}
