import { RecordType, encodePayload, type RecordInput, type TerminalStatus } from '../core/store';
import { transcriptRecord, type TranscriptPayload } from '../core/transcript';

// The records of a task run. Keys are fixed per change or step and timestamps come from the
// workflow, so a retried activity proposes exactly the same record.

export const TASK_AGENT_ID = 'weft.task';

export interface RunOwner {
  runId: string;
  sessionId?: string;
}

export function ownerOf(runId: string, sessionId: string): RunOwner {
  return { runId, ...(sessionId ? { sessionId } : {}) };
}

function base(owner: RunOwner, key: string, at: Date) {
  return {
    key: `${owner.runId}/${key}`,
    runId: owner.runId,
    agentId: TASK_AGENT_ID,
    ...(owner.sessionId ? { sessionId: owner.sessionId } : {}),
    timestamp: at,
  };
}

function record(owner: RunOwner, key: string, type: string, at: Date, payload: object): RecordInput {
  return { ...base(owner, key, at), type, payload: encodePayload(payload) };
}

export function runStartedRecord(owner: RunOwner, at: Date, labels: Record<string, string>): RecordInput {
  return record(owner, 'started', RecordType.RunStarted, at, { labels });
}

export function sessionEndedRecord(owner: RunOwner, at: Date): RecordInput {
  return record(owner, 'stopped', RecordType.RunCompleted, at, { status: 'canceled', reason: 'session_ended' });
}

export function cancellationIntentRecord(owner: RunOwner, at: Date, reason: string): RecordInput {
  return record(owner, 'cancel-intent', RecordType.CancellationIntent, at, { reason });
}

export function runCompletedRecord(
  owner: RunOwner,
  at: Date,
  outcome: { status: TerminalStatus; reason?: string; error?: string },
): RecordInput {
  return record(owner, 'completed', RecordType.RunCompleted, at, outcome);
}

export const stepReplyKey = (owner: RunOwner, step: number) => `${owner.runId}/step-${step}/reply`;

export function seedRecord(owner: RunOwner, at: Date, payload: TranscriptPayload): RecordInput {
  return transcriptRecord(base(owner, 'seed', at), RecordType.TranscriptSeeded, payload);
}

export function stepReplyRecord(owner: RunOwner, step: number, at: Date, payload: TranscriptPayload): RecordInput {
  return transcriptRecord(base(owner, `step-${step}/reply`, at), RecordType.TranscriptAppended, payload);
}
