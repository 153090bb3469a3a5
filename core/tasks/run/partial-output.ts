import type { Queryable } from '../../db/transaction';
import { publishLiveEvent } from '../../events/event-log';
import { EventType } from '../../events/event-types';

// A model step's text as it streams, to the task's live readers as LLM_PARTIAL events. They are
// live-only: not stored, never replayed, and repeated when a step is retried; the step's stored
// reply is the record. Pieces are batched so a fast stream costs a few notifications a second.

const flushMs = 100;
/** Code points per notification: even fully escaped in JSON this stays under NOTIFY's 8,000 bytes. */
const maxPiece = 1_000;

export interface PartialOutput {
  add(text: string): void;
  /**
   * Sends what is pending and waits for every notification; a failed one is thrown here. Given
   * `into` (the transaction that stores the step's reply), the last piece goes out with it and
   * reaches the readers when it commits.
   */
  finish(into?: Queryable): Promise<void>;
}

export function partialOutputPublisher(db: Queryable, workflowId: string, agentId: string): PartialOutput {
  let pending: string[] = [];
  let timer: NodeJS.Timeout | undefined;
  let sent: Promise<void> = Promise.resolve();
  // Kept until finish() rather than left as a rejected promise nobody awaits yet.
  let failure: unknown;
  const flush = (through: Queryable = db) => {
    clearTimeout(timer);
    timer = undefined;
    for (let i = 0; i < pending.length; i += maxPiece) {
      const message = pending.slice(i, i + maxPiece).join('');
      sent = sent
        .then(() => (failure ? undefined : publishLiveEvent(through, { workflowId, type: EventType.LlmPartial, agentId, message, at: new Date() })))
        .catch((err: unknown) => {
          failure ??= err;
        });
    }
    pending = [];
  };
  return {
    add(text) {
      pending.push(...Array.from(text));
      if (pending.length >= maxPiece) flush();
      else timer ??= setTimeout(flush, flushMs);
    },
    async finish(into) {
      flush(into);
      await sent;
      if (failure) throw failure;
    },
  };
}
