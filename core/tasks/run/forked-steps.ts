import { RecordType, type RecordInput, type RuntimeStore, type StoredRecord } from '../../store';
import type { ToolOutcome } from '../../tools/tool';
import { decodeTranscriptRecord, transcriptRecord } from '../../transcript';
import { decodeToolResolution, decodeToolResult, stepReplyKey, toolResolutionKey, toolResultKey, type RecordOwner } from './run-records';

// A fork runs a task again from one of its steps (`weft fork --from-step N`). Its steps before N
// reuse what the task it came from recorded: the model's replies and the tools' results are copied
// into the fork's own run, so no model or tool is asked, and nothing is charged, a second time.

/** Where a fork comes from: the task, its run, and the first step (1-based) that runs fresh. */
export interface TaskFork {
  fromTaskId: string;
  fromRunId: string;
  fromStep: number;
}

/** A predecessor's record, as the same record of this run (its key, run, agent and session; the workflow's time). */
function sameRecordFor(stored: StoredRecord, fromRunId: string, owner: RecordOwner, at: Date): RecordInput {
  return {
    key: `${owner.runId}${stored.key.slice(fromRunId.length)}`,
    runId: owner.runId,
    agentId: owner.runAgentId,
    ...(owner.sessionId ? { sessionId: owner.sessionId } : {}),
    type: stored.type,
    timestamp: at,
    payload: stored.payload,
  };
}

/**
 * A predecessor's record copied into this run. A copied reply spent no tokens: it carries no usage,
 * so a retry of its step charges nothing either.
 */
export function copiedRecord(stored: StoredRecord, fromRunId: string, owner: RecordOwner, at: Date): RecordInput {
  const copy = sameRecordFor(stored, fromRunId, owner, at);
  if (stored.type !== RecordType.TranscriptAppended) return copy;
  const { usage, ...payload } = decodeTranscriptRecord(stored);
  return usage ? transcriptRecord(copy, RecordType.TranscriptAppended, payload) : copy;
}

/**
 * The records model step `step` of the predecessor run added to its transcript (its seed on step
 * 0, the tool results handed back, a compaction, the reply), copied for this run; undefined when
 * the predecessor never finished that step, which then runs fresh.
 */
export async function recordedStep(store: RuntimeStore, fromRunId: string, owner: RecordOwner, step: number, at: Date): Promise<RecordInput[] | undefined> {
  const from = { runId: fromRunId, runAgentId: owner.runAgentId };
  const reply = await store.findRunRecord(fromRunId, stepReplyKey(from, step));
  if (!reply) return undefined;
  const before = [...(step === 0 ? ['seed'] : []), `step-${step}/tool-results`, `step-${step}/compaction`];
  const found = await Promise.all(before.map((name) => store.findRunRecord(fromRunId, `${fromRunId}/${name}`)));
  return [...found.filter((record): record is StoredRecord => record !== undefined), reply].map((record) => copiedRecord(record, fromRunId, owner, at));
}

/** The outcome the predecessor run recorded for a tool call (a person's resolution first); undefined when it has none. */
export async function recordedToolOutcome(store: RuntimeStore, fromRunId: string, owner: RecordOwner, toolCallId: string): Promise<ToolOutcome | undefined> {
  const from = { runId: fromRunId, runAgentId: owner.runAgentId };
  const resolution = await store.findRunRecord(fromRunId, toolResolutionKey(from, toolCallId));
  if (resolution) return decodeToolResolution(resolution);
  const result = await store.findRunRecord(fromRunId, toolResultKey(from, toolCallId));
  return result ? decodeToolResult(result) : undefined;
}
