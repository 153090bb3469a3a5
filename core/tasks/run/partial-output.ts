import type { Queryable } from '../../db/transaction';
import { publishLiveEvent } from '../../events/event-log';
import { EventType } from '../../events/event-types';

// A model step's text as it streams, to the task's live readers as LLM_PARTIAL events. They are
// live-only: not stored, never replayed, and repeated when a step is retried; the step's stored
// reply is the record. The first piece is sent at once; the rest are batched, so a fast stream
// costs a few notifications a second.

const flushMs = 100;
/** Code points per notification: even fully escaped in JSON this stays under NOTIFY's 8,000 bytes. */
const maxPiece = 1_000;

export interface PartialOutput {
  add(text: string): void;
  /** Sends what is pending and waits for every notification; a failed one is thrown here. */
  finish(): Promise<void>;
  /**
   * Ends the stream inside a transaction: stops the timed sends and waits for those on their way
   * (a failed one is thrown here). The function it gives sends what is still pending with the
   * transaction's statements, at once, and the commit delivers it.
   */
  finishIn(): Promise<(tx: Queryable) => Promise<void>>;
}

export function partialOutputPublisher(db: Queryable, workflowId: string, agentId: string): PartialOutput {
  let pending: string[] = [];
  let timer: NodeJS.Timeout | undefined;
  let sent: Promise<void> = Promise.resolve();
  let started = false;
  // Kept until finish() rather than left as a rejected promise nobody awaits yet.
  let failure: unknown;
  const publish = (through: Queryable, message: string) =>
    publishLiveEvent(through, { workflowId, type: EventType.LlmPartial, agentId, message, at: new Date() });
  /** What is pending, in notifications of at most maxPiece code points. */
  const takePieces = () => {
    clearTimeout(timer);
    timer = undefined;
    const pieces: string[] = [];
    for (let i = 0; i < pending.length; i += maxPiece) pieces.push(pending.slice(i, i + maxPiece).join(''));
    pending = [];
    return pieces;
  };
  const flush = () => {
    for (const message of takePieces()) {
      sent = sent
        .then(() => (failure ? undefined : publish(db, message)))
        .catch((err: unknown) => {
          failure ??= err;
        });
    }
  };
  const settled = async () => {
    await sent;
    if (failure) throw failure;
  };
  return {
    add(text) {
      pending.push(...Array.from(text));
      // The first piece goes at once (a reader's time to first token), the rest in batches.
      if (!started || pending.length >= maxPiece) flush();
      else timer ??= setTimeout(flush, flushMs);
      started = true;
    },
    async finish() {
      flush();
      await settled();
    },
    async finishIn() {
      clearTimeout(timer);
      timer = undefined;
      await settled();
      return async (tx) => {
        await Promise.all(takePieces().map((message) => publish(tx, message)));
      };
    },
  };
}
