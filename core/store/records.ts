import { z } from 'zod';
import { InvalidStoreInputError } from './errors';

export const RecordType = {
  RunStarted: 'run_started',
  RunCompleted: 'run_completed',
  RunSuspended: 'run_suspended',
  ChildRunLinked: 'child_run_linked',
  CancellationIntent: 'runtime.cancellation_intent',
  TranscriptSeeded: 'transcript_messages_seeded',
  TranscriptAppended: 'transcript_messages_appended',
  /** Older turns replaced by a summary (history compression). */
  TranscriptCompacted: 'transcript_compacted',
  /** A tool call's outcome, keyed by its tool-call id. */
  ToolResult: 'tool_result',
  /** An at-most-once tool call may have started (its request may be out). */
  ToolCallStarted: 'tool_call_started',
  /** A person's resolution of a call whose outcome was unknown: what the model is given instead. */
  ToolResultResolved: 'tool_result_resolved',
  /** A routing model call's reply (complexity analysis, decomposition). */
  ModelReply: 'model_reply',
  ApprovalRequested: 'approval_requested',
  ApprovalDecided: 'approval_decided',
  /** A person paused or resumed the task (its steering). */
  ControlChanged: 'control_changed',
  /** A person's message to the running task, as it was received (the step that delivers it records it in the transcript). */
  MessageReceived: 'message_received',
  /** A round of a plan's review: a plan proposed, a person's feedback, the decision. */
  PlanReview: 'plan_review',
} as const;

/** Every record type Weft writes; the store itself accepts any type its caller names. */
export type RecordType = (typeof RecordType)[keyof typeof RecordType];

/** Record types only lifecycle methods may write; appendRunRecord refuses them. */
export const lifecycleRecordTypes: ReadonlySet<string> = new Set([
  RecordType.RunStarted,
  RecordType.RunCompleted,
  RecordType.RunSuspended,
  RecordType.ChildRunLinked,
  RecordType.CancellationIntent,
]);

export type RunStatus = 'running' | 'suspended' | 'completed' | 'failed' | 'canceled';
export type TerminalStatus = 'completed' | 'failed' | 'canceled';

/** A record as a caller proposes it. `key` is unique per run; a retry reuses the same key and fields. */
export interface RecordInput {
  key: string;
  runId: string;
  agentId: string;
  sessionId?: string;
  turnId?: string;
  type: string;
  timestamp: Date;
  /** Exactly the bytes to store (UTF-8 JSON). */
  payload: Uint8Array;
}

export interface StoredRecord extends Required<Omit<RecordInput, 'sessionId'>> {
  id: string;
  sessionId?: string;
}

export interface RecordWrite {
  recordId: string;
  inserted: boolean;
}

// Lifecycle payloads are decoded strictly: one JSON object, no unknown fields, nothing after it.
const labelsSchema = z.record(z.string(), z.string());
export const runStartedPayload = z.strictObject({
  parent_run_id: z.string().optional(),
  predecessor_run_id: z.string().optional(),
  labels: labelsSchema.optional(),
});
export const runCompletedPayload = z.strictObject({
  status: z.enum(['completed', 'failed', 'canceled']),
  phase: z.string().optional(),
  reason: z.string().optional(),
  error: z.string().optional(),
});
export const runSuspendedPayload = z.strictObject({
  reason: z.string().optional(),
});
export const childRunLinkedPayload = z.strictObject({
  tool_name: z.string(),
  tool_call_id: z.string(),
  child_run_id: z.string(),
  child_agent_id: z.string(),
});
export const cancellationIntentPayload = z.strictObject({ reason: z.string().min(1) });

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Parses a lifecycle payload with the strict JSON contract; throws InvalidStoreInputError. */
export function decodeStrict<T>(schema: z.ZodType<T>, bytes: Uint8Array, what: string): T {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new InvalidStoreInputError(`${what} payload is not valid UTF-8`);
  }
  let value: unknown;
  try {
    // JSON.parse already refuses a second value after the first.
    value = JSON.parse(text);
  } catch {
    throw new InvalidStoreInputError(`${what} payload is not a single JSON value`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new InvalidStoreInputError(`${what} payload must be a JSON object`);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const detail = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    throw new InvalidStoreInputError(`${what} payload: ${detail}`);
  }
  return parsed.data;
}

/** Encodes a payload object as the exact bytes a record stores. */
export function encodePayload(value: object): Uint8Array {
  return Buffer.from(JSON.stringify(value), 'utf8');
}
