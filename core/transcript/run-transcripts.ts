import { LRUCache } from 'lru-cache';
import type { RuntimeStore } from '../store';
import type { Message } from './messages';
import { applyRunLogRecords, readRunLog } from './run-log';

// A model step's transcript is its run's log replayed. Replaying the whole log at every step costs
// time linear in the run's length, quadratic over a long task, so a worker keeps for each run the
// messages replayed so far with the id of the last record they include, and reads only the records
// after it. The log stays the truth: a worker that has not seen a run (restarted, or another
// process served the earlier steps) reads what it lacks, and within a run ids follow commit order
// (appends hold the run's row lock), so no record committed before a read is skipped by it.

interface Replayed {
  messages: readonly Message[];
  /** The last record the messages include ('' before the first). */
  lastRecordId: string;
  /** The payload bytes replayed: what the entry weighs in the cache. */
  bytes: number;
}

export interface RunTranscriptOptions {
  /** Payload bytes kept across all runs; the least recently used runs go first. */
  maxBytes: number;
  /** How long an idle run's transcript stays in memory. */
  idleMs: number;
}

export interface RunTranscripts {
  /** The run's transcript as of every record committed so far. */
  messagesOf(runId: string): Promise<Message[]>;
}

const defaults: RunTranscriptOptions = { maxBytes: 64 * 1024 * 1024, idleMs: 10 * 60_000 };

export function runTranscripts(store: Pick<RuntimeStore, 'listRunRecords'>, options: RunTranscriptOptions = defaults): RunTranscripts {
  const replayed = new LRUCache<string, Replayed>({
    maxSize: options.maxBytes,
    sizeCalculation: (entry) => Math.max(1, entry.bytes),
    // An idle run's messages (a finished task's conversation) leave memory, not only when crowded out.
    ttl: options.idleMs,
    ttlAutopurge: true,
    updateAgeOnGet: true,
  });

  return {
    async messagesOf(runId) {
      const known = replayed.get(runId) ?? { messages: [], lastRecordId: '', bytes: 0 };
      const added = await readRunLog(store, runId, 500, known.lastRecordId);
      if (added.length === 0) return [...known.messages];
      const messages = applyRunLogRecords(known.messages, added);
      const bytes = added.reduce((sum, record) => sum + record.payload.byteLength, known.bytes);
      replayed.set(runId, { messages, lastRecordId: added.at(-1)!.id, bytes });
      return [...messages];
    },
  };
}
