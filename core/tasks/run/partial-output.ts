import type { Queryable } from '../../db/transaction';
import { appendTaskEvent, liveEventNote, publishLiveEvent } from '../../events/event-log';
import { EventType } from '../../events/event-types';

// A model step's text as it streams, to the task's live readers as LLM_PARTIAL events. They are
// live-only by default: not stored, never replayed, and repeated when a step is retried; the step's
// stored reply is the record. A task that records its partials (one run for OpenAI's Responses API)
// appends them to its event log instead, each piece keyed by its step, attempt and offset, so any
// API process can replay the stream exactly and a retried append is not stored twice. The first
// piece is sent at once; the rest are batched, so a fast stream costs a few writes a second.

const flushMs = 100;
/** Code points per notification: even fully escaped in JSON this stays under NOTIFY's 8,000 bytes. */
const maxPiece = 1_000;

interface Piece {
  message: string;
  offset: number;
}

export interface PartialOutput {
  add(text: string): void;
  /** Sends what is pending and waits for every notification; a failed one is thrown here. */
  finish(): Promise<void>;
  /**
   * Ends the stream inside a transaction: stops the timed sends and waits for those on their way
   * (a failed one is thrown here). `send` sends what is still pending with the transaction's
   * statements, at once, and the commit delivers it; `liveNotes` are the notifications that would
   * send it, for a statement that sends them itself (none when the pieces are recorded in the log).
   */
  finishIn(): Promise<{ send(tx: Queryable): Promise<void>; liveNotes(): string[] | undefined }>;
}

/** Where a recorded piece of text comes from: the step (unique in the task) and the attempt at it. */
export interface PartialSource {
  step: string;
  attempt: number;
}

export function partialOutputPublisher(db: Queryable, workflowId: string, agentId: string, recordAs?: PartialSource): PartialOutput {
  let pending: string[] = [];
  let timer: NodeJS.Timeout | undefined;
  let sent: Promise<void> = Promise.resolve();
  let started = false;
  // Kept until finish() rather than left as a rejected promise nobody awaits yet.
  let failure: unknown;
  /** Code points taken so far: a piece's offset in the step's text. */
  let taken = 0;
  const publish = async (through: Queryable, { message, offset }: Piece) => {
    const event = { workflowId, type: EventType.LlmPartial, agentId, message, at: new Date() };
    if (!recordAs) return publishLiveEvent(through, event);
    const { step, attempt } = recordAs;
    await appendTaskEvent(through, { ...event, key: `partial:${step}:${attempt}:${offset}`, payload: { step, attempt, offset } });
  };
  /** What is pending, in pieces of at most maxPiece code points. */
  const pendingPieces = () => {
    const pieces: Piece[] = [];
    for (let i = 0; i < pending.length; i += maxPiece) pieces.push({ message: pending.slice(i, i + maxPiece).join(''), offset: taken + i });
    return pieces;
  };
  const takePieces = () => {
    clearTimeout(timer);
    timer = undefined;
    const pieces = pendingPieces();
    taken += pending.length;
    pending = [];
    return pieces;
  };
  const flush = () => {
    for (const piece of takePieces()) {
      sent = sent
        .then(() => (failure ? undefined : publish(db, piece)))
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
      return {
        async send(tx) {
          // In order: recorded pieces take their places in the log one after the other.
          for (const piece of takePieces()) await publish(tx, piece);
        },
        liveNotes: () =>
          recordAs
            ? undefined
            : pendingPieces().map(({ message }) => liveEventNote({ workflowId, type: EventType.LlmPartial, agentId, message, at: new Date() })),
      };
    },
  };
}
