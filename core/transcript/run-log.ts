import { z } from 'zod';
import { RecordType, decodeStrict, encodePayload, type RecordInput, type RuntimeStore, type StoredRecord } from '../store';
import { messageSchema, type Message } from './messages';

// Transcript records in a run's log: `transcript_messages_seeded` holds messages that existed before
// the run, `transcript_messages_appended` the messages accepted while it ran (with the model call's
// usage when an assistant message came from a model), `transcript_compacted` a summary that replaced
// the oldest messages from then on. Replaying them rebuilds what the model saw.

const usageSchema = z.strictObject({
  promptTokens: z.number().int().nonnegative(),
  completionTokens: z.number().int().nonnegative(),
  totalTokens: z.number().int().nonnegative(),
  cachedPromptTokens: z.number().int().nonnegative().optional(),
  /** The provider reported none: Weft counted the call. */
  estimated: z.boolean().optional(),
});

export const transcriptPayloadSchema = z.strictObject({
  messages: z.array(messageSchema).min(1),
  model: z.string().optional(),
  finishReason: z.string().optional(),
  usage: usageSchema.optional(),
});
export type TranscriptPayload = z.infer<typeof transcriptPayloadSchema>;

export const compactionPayloadSchema = z.strictObject({
  summary: z.string(),
  /** How many of the transcript's first messages, at that point, the summary replaced. */
  replacedMessages: z.number().int().positive(),
  replacedTokens: z.number().int().nonnegative(),
  /** The newest complete turns kept exactly. */
  keptTurns: z.number().int().nonnegative(),
  model: z.string(),
  usage: usageSchema,
});
export type CompactionPayload = z.infer<typeof compactionPayloadSchema>;

const transcriptTypes: ReadonlySet<string> = new Set([RecordType.TranscriptSeeded, RecordType.TranscriptAppended, RecordType.TranscriptCompacted]);

const summaryHeading = 'Summary of the earlier conversation:\n';

/** How a summary stands in the transcript for the turns it replaced. */
export function summaryMessage(summary: string): Message {
  return { role: 'user', parts: [{ kind: 'text', text: `${summaryHeading}${summary}` }] };
}

export const isSummaryMessage = (message: Message) =>
  message.role === 'user' && message.parts.length === 1 && message.parts[0]!.kind === 'text' && message.parts[0]!.text.startsWith(summaryHeading);

export function compactionRecord(owner: Omit<RecordInput, 'type' | 'payload'>, payload: CompactionPayload): RecordInput {
  return { ...owner, type: RecordType.TranscriptCompacted, payload: encodePayload(compactionPayloadSchema.parse(payload)) };
}

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

/**
 * Applies records, in stored order, to the messages replayed so far (a transcript kept between
 * steps takes only the records after those it has seen). The messages passed in are not changed.
 */
export function applyRunLogRecords(before: readonly Message[], records: readonly Pick<StoredRecord, 'payload' | 'type'>[]): Message[] {
  let messages = [...before];
  for (const record of records) {
    if (!transcriptTypes.has(record.type)) continue;
    if (record.type === RecordType.TranscriptCompacted) {
      const compaction = decodeStrict(compactionPayloadSchema, record.payload, record.type);
      if (compaction.replacedMessages > messages.length) {
        throw new Error(`a compaction replaces ${compaction.replacedMessages} messages of a transcript of ${messages.length}`);
      }
      messages = [summaryMessage(compaction.summary), ...messages.slice(compaction.replacedMessages)];
    } else {
      messages.push(...decodeTranscriptRecord(record).messages);
    }
  }
  return messages;
}

/** Replays already loaded records, in stored order, into the message list. */
export const replayRunLogRecords = (records: readonly Pick<StoredRecord, 'payload' | 'type'>[]): Message[] => applyRunLogRecords([], records);

/**
 * Reads a run's log, page by page, oldest first: all of it, or the records after the record id
 * `after`. A page that makes no forward progress (an unchanged cursor, or ids that do not
 * increase) is refused rather than looped on.
 */
export async function readRunLog(store: Pick<RuntimeStore, 'listRunRecords'>, runId: string, pageSize = 500, after = ''): Promise<StoredRecord[]> {
  const records: StoredRecord[] = [];
  let cursor = after;
  let lastId = after === '' ? 0n : BigInt(after);
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
export async function buildMessagesFromRunLog(store: Pick<RuntimeStore, 'listRunRecords'>, runId: string, pageSize = 500): Promise<Message[]> {
  return replayRunLogRecords(await readRunLog(store, runId, pageSize));
}
