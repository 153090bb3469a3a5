import { RecordType, encodePayload, type RecordInput, type TerminalStatus } from '../core/store';
import { compactionRecord, transcriptRecord, type CompactionPayload, type TranscriptPayload } from '../core/transcript';

// The records of a task run. Keys are fixed per change or step and timestamps come from the
// workflow, so a retried activity proposes exactly the same record.

export const TASK_AGENT_ID = 'weft.task';

export interface RunOwner {
  runId: string;
  agentId: string;
  sessionId?: string;
}

/** The identity every record of a run carries: the task run's by default, an agent run's when named. */
export function ownerOf(runId: string, sessionId: string, agentId = TASK_AGENT_ID): RunOwner {
  return { runId, agentId, ...(sessionId ? { sessionId } : {}) };
}

/** Store identity of a COMPLEX task's agent. */
export const agentRunAgentId = (agentId: string) => `weft.agent.${agentId}`;

function base(owner: RunOwner, key: string, at: Date) {
  return {
    key: `${owner.runId}/${key}`,
    runId: owner.runId,
    agentId: owner.agentId,
    ...(owner.sessionId ? { sessionId: owner.sessionId } : {}),
    timestamp: at,
  };
}

function record(owner: RunOwner, key: string, type: string, at: Date, payload: object): RecordInput {
  return { ...base(owner, key, at), type, payload: encodePayload(payload) };
}

export function runStartedRecord(owner: RunOwner, at: Date, labels: Record<string, string>, parentRunId?: string): RecordInput {
  return record(owner, 'started', RecordType.RunStarted, at, { ...(parentRunId ? { parent_run_id: parentRunId } : {}), labels });
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

export const toolResultKey = (owner: RunOwner, toolCallId: string) => `${owner.runId}/tool/${toolCallId}`;
const TOOL_RESULT_RECORD = 'tool_result';

export function toolResultRecord(owner: RunOwner, toolCallId: string, at: Date, payload: object): RecordInput {
  return record(owner, `tool/${toolCallId}`, TOOL_RESULT_RECORD, at, payload);
}

export function toolResultsRecord(owner: RunOwner, step: number, at: Date, payload: TranscriptPayload): RecordInput {
  return transcriptRecord(base(owner, `step-${step}/tool-results`, at), RecordType.TranscriptAppended, payload);
}

export function childLinkRecord(owner: RunOwner, at: Date, child: { runId: string; agentId: string }, toolCallId: string): RecordInput {
  return record(owner, `link/${child.runId}`, RecordType.ChildRunLinked, at, {
    tool_name: 'weft.agent',
    tool_call_id: toolCallId,
    child_run_id: child.runId,
    child_agent_id: child.agentId,
  });
}

export function approvalRecord(owner: RunOwner, approvalId: string, change: 'requested' | 'decided', at: Date, payload: object): RecordInput {
  return record(owner, `approval/${approvalId}/${change}`, `approval_${change}`, at, payload);
}

export function seedRecord(owner: RunOwner, at: Date, payload: TranscriptPayload): RecordInput {
  return transcriptRecord(base(owner, 'seed', at), RecordType.TranscriptSeeded, payload);
}

export function stepCompactionRecord(owner: RunOwner, step: number, at: Date, payload: CompactionPayload): RecordInput {
  return compactionRecord(base(owner, `step-${step}/compaction`, at), payload);
}

export function stepReplyRecord(owner: RunOwner, step: number, at: Date, payload: TranscriptPayload): RecordInput {
  return transcriptRecord(base(owner, `step-${step}/reply`, at), RecordType.TranscriptAppended, payload);
}
