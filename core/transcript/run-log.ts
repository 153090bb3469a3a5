import { z } from 'zod';
import { RecordType, decodeStrict, encodePayload, type RecordInput, type RuntimeStore, type StoredRecord } from '../store';
import { messageSchema, type Message } from './messages';

// Transcript records in a run's log: `transcript_messages_seeded` holds messages that existed before
// the run, `transcript_messages_appended` the messages accepted while it ran (with the model call's
// usage when an assistant message came from a model). Replaying them rebuilds what the model saw.

const usageSchema = z.strictObject({
  promptTokens: z.number().int().nonnegative(),
  completionTokens: z.number().int().nonnegative(),
  totalTokens: z.number().int().nonnegative(),
  cachedPromptTokens: z.number().int().nonnegative().optional(),
});

export const transcriptPayloadSchema = z.strictObject({
  messages: z.array(messageSchema).min(1),
  model: z.string().optional(),
  finishReason: z.string().optional(),
  usage: usageSchema.optional(),
});
export type TranscriptPayload = z.infer<typeof transcriptPayloadSchema>;

const transcriptTypes: ReadonlySet<string> = new Set([RecordType.TranscriptSeeded, RecordType.TranscriptAppended]);

export function transcriptRecord(
  owner: Omit<RecordInput, 'type' | 'payload'>,
  type: typeof RecordType.TranscriptSeeded | typeof RecordType.TranscriptAppended,
  payload: TranscriptPayload,
): RecordInput {
  return { ...owner, type, payload: encodePayload(transcriptPayloadSchema.parse(payload)) };
}

export function decodeTranscriptRecord(record: Pick<StoredRecord, 'payload' | 'type'>): TranscriptPayload {
  return decodeStrict(transcriptPayloadSchema, record.payload, record.type);
}

/** Replays already loaded records, in stored order, into the message list. */
export function replayRunLogRecords(records: readonly StoredRecord[]): Message[] {
  return records.filter((r) => transcriptTypes.has(r.type)).flatMap((r) => decodeTranscriptRecord(r).messages);
}

/**
 * Reads a run's whole log, page by page, oldest first. A page that makes no forward progress (an
 * unchanged cursor, or ids that do not increase) is refused rather than looped on.
 */
export async function readRunLog(store: Pick<RuntimeStore, 'listRunRecords'>, runId: string, pageSize = 500): Promise<StoredRecord[]> {
  const records: StoredRecord[] = [];
  let cursor = '';
  let lastId = 0n;
  for (;;) {
    const page = await store.listRunRecords(runId, cursor, pageSize);
    for (const record of page.records) {
      if (BigInt(record.id) <= lastId) throw new Error(`run log page after cursor "${cursor}" made no forward progress`);
      lastId = BigInt(record.id);
    }
    records.push(...page.records);
    if (page.nextCursor === '') return records;
    if (page.nextCursor === cursor || page.records.length === 0) {
      throw new Error(`run log page after cursor "${cursor}" made no forward progress`);
    }
    cursor = page.nextCursor;
  }
}

/** Rebuilds the exact messages a model saw from the run's log (Goa-AI's BuildMessagesFromRunLog). */
export async function buildMessagesFromRunLog(
  store: Pick<RuntimeStore, 'listRunRecords'>,
  runId: string,
  pageSize = 500,
): Promise<Message[]> {
  return replayRunLogRecords(await readRunLog(store, runId, pageSize));
}
