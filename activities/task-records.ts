import { RecordType, encodePayload, type RecordInput, type TerminalStatus } from '../core/store';

// Lifecycle records of a task run. Keys are fixed per change and timestamps come from the workflow,
// so a retried activity proposes exactly the same record.

export const TASK_AGENT_ID = 'weft.task';

interface RunOwner {
  runId: string;
  sessionId?: string;
}

function record(owner: RunOwner, key: string, type: string, at: Date, payload: object): RecordInput {
  return {
    key: `${owner.runId}/${key}`,
    runId: owner.runId,
    agentId: TASK_AGENT_ID,
    ...(owner.sessionId ? { sessionId: owner.sessionId } : {}),
    type,
    timestamp: at,
    payload: encodePayload(payload),
  };
}

export function runStartedRecord(owner: RunOwner, at: Date, labels: Record<string, string>): RecordInput {
  return record(owner, 'started', RecordType.RunStarted, at, { labels });
}

export function sessionEndedRecord(owner: RunOwner, at: Date): RecordInput {
  return record(owner, 'stopped', RecordType.RunCompleted, at, { status: 'canceled', reason: 'session_ended' });
}

export function runCompletedRecord(
  owner: RunOwner,
  at: Date,
  outcome: { status: TerminalStatus; reason?: string; error?: string },
): RecordInput {
  return record(owner, 'completed', RecordType.RunCompleted, at, outcome);
}
