import type { Queryable } from '../db/transaction';
import {
  EventConflictError,
  InvalidStoreInputError,
  RecordOwnerMismatchError,
  RunMetadataConflictError,
  RunNotActiveError,
  RunNotFoundError,
  RunSuspensionNotFoundError,
} from './errors';
import { findRecordByKey, insertLifecycleRecord, requireExactRetry } from './record-table';
import { RecordType, childRunLinkedPayload, decodeStrict, runCompletedPayload, runStartedPayload, type RecordInput, type RunStatus } from './records';
import { findLifecycleRecordId, findRun, insertRun, lockRunForWrite, requireLiveSession, type StoredRun } from './run-table';
import { requireDistinctKeys, requireId, requireOwner, requireRecordType, requireTimestamp, sameLabels, validateRecordShape } from './validation';

export const SESSION_ENDED_REASON = 'session_ended';

export interface RunStartCommand {
  runId: string;
  agentId: string;
  sessionId?: string;
  parentRunId?: string;
  /** Continues this suspended run (same session, agent and parent). */
  predecessorRunId?: string;
  labels?: Record<string, string>;
  startedAt: Date;
  /** The run_started record. */
  started: RecordInput;
  /** The canceled run_completed written instead of proceeding when the session has ended. Always validated. */
  canceled: RecordInput;
}

export interface ChildRunStartCommand extends RunStartCommand {
  parentRunId: string;
  /** The child_run_linked record appended to the parent's log. */
  link: RecordInput;
}

export interface RunStartResult {
  /** The decision of the first start: a retry returns it unchanged. */
  decision: 'proceed' | 'stop';
  /** The run's status now. */
  status: RunStatus;
  startedRecordId: string;
  canceledRecordId?: string;
  linkRecordId?: string;
  inserted: boolean;
}

export type StartKind = 'root' | 'oneShot' | 'child' | 'oneShotChild';

const sessionful = (kind: StartKind) => kind === 'root' || kind === 'child';
const childKind = (kind: StartKind) => kind === 'child' || kind === 'oneShotChild';

/** Every rule a start command must meet before anything is read or written. */
export function validateStart(cmd: RunStartCommand | ChildRunStartCommand, kind: StartKind): void {
  requireId(cmd.runId, 'run id');
  requireId(cmd.agentId, 'agent id');
  if (sessionful(kind)) requireId(cmd.sessionId, 'session id');
  else if (cmd.sessionId) throw new InvalidStoreInputError('one-shot runs have no session');
  if (childKind(kind)) requireId(cmd.parentRunId, 'parent run id');
  else if (cmd.parentRunId) throw new InvalidStoreInputError('a root run has no parent; start it as a child run');
  if (cmd.predecessorRunId === cmd.runId) throw new InvalidStoreInputError('a run cannot continue itself');
  requireTimestamp(cmd.startedAt, 'start time');
  validateRecordShape(cmd.started, 'started record');
  validateRecordShape(cmd.canceled, 'canceled record');
  requireRecordType(cmd.started, RecordType.RunStarted, 'started record');
  requireRecordType(cmd.canceled, RecordType.RunCompleted, 'canceled record');
  requireDistinctKeys([cmd.started, cmd.canceled]);
  const owner = { runId: cmd.runId, agentId: cmd.agentId, sessionId: cmd.sessionId };
  requireOwner(cmd.started, owner, () => new RecordOwnerMismatchError());
  requireOwner(cmd.canceled, owner, () => new RecordOwnerMismatchError());
  if (cmd.started.timestamp.getTime() !== cmd.startedAt.getTime()) {
    throw new InvalidStoreInputError('started record timestamp must equal the start time');
  }
  const started = decodeStrict(runStartedPayload, cmd.started.payload, RecordType.RunStarted);
  if (
    (started.parent_run_id ?? '') !== (cmd.parentRunId ?? '') ||
    (started.predecessor_run_id ?? '') !== (cmd.predecessorRunId ?? '') ||
    !sameLabels(started.labels, cmd.labels)
  ) {
    throw new InvalidStoreInputError('started record parent, predecessor and labels must equal the run');
  }
  const canceled = decodeStrict(runCompletedPayload, cmd.canceled.payload, RecordType.RunCompleted);
  if (canceled.status !== 'canceled' || canceled.reason !== SESSION_ENDED_REASON) {
    throw new InvalidStoreInputError(`canceled record must have status canceled and reason ${SESSION_ENDED_REASON}`);
  }
  if (childKind(kind)) validateLink(cmd as ChildRunStartCommand);
}

function validateLink(cmd: ChildRunStartCommand): void {
  const link = cmd.link;
  if (!link) throw new InvalidStoreInputError('a child start needs its child_run_linked record');
  validateRecordShape(link, 'link record');
  requireRecordType(link, RecordType.ChildRunLinked, 'link record');
  if (link.runId !== cmd.parentRunId) throw new RecordOwnerMismatchError();
  const payload = decodeStrict(childRunLinkedPayload, link.payload, RecordType.ChildRunLinked);
  if (payload.child_run_id !== cmd.runId || payload.child_agent_id !== cmd.agentId) {
    throw new InvalidStoreInputError('link record must name the child run and agent being started');
  }
}

function sameRunIdentity(stored: StoredRun, cmd: RunStartCommand): boolean {
  return (
    stored.agentId === cmd.agentId &&
    (stored.sessionId ?? '') === (cmd.sessionId ?? '') &&
    (stored.parentRunId ?? '') === (cmd.parentRunId ?? '') &&
    (stored.predecessorRunId ?? '') === (cmd.predecessorRunId ?? '') &&
    sameLabels(stored.labels, cmd.labels) &&
    stored.startedAt.getTime() === cmd.startedAt.getTime()
  );
}

/** The stored record that first proved `change` must be exactly `record`. */
async function requireFirstRecord(tx: Queryable, runId: string, change: 'start' | 'terminal' | 'link', record: RecordInput, subject = ''): Promise<string> {
  const firstId = await findLifecycleRecordId(tx, runId, change, subject);
  const stored = await findRecordByKey(tx, record.runId, record.key);
  if (!stored || String(stored.record_id) !== firstId) {
    throw new EventConflictError(`the ${change} was recorded with another record`);
  }
  return requireExactRetry(stored, record).recordId;
}

/** A start that already happened: only an exact retry is accepted, and it changes nothing. */
async function replayStart(tx: Queryable, stored: StoredRun, cmd: RunStartCommand | ChildRunStartCommand): Promise<RunStartResult> {
  if (!sameRunIdentity(stored, cmd)) throw new RunMetadataConflictError();
  const result: RunStartResult = {
    decision: stored.startOutcome,
    status: stored.status,
    startedRecordId: await requireFirstRecord(tx, cmd.runId, 'start', cmd.started),
    inserted: false,
  };
  if ('link' in cmd) result.linkRecordId = await requireFirstRecord(tx, cmd.parentRunId, 'link', cmd.link, cmd.runId);
  if (stored.startOutcome === 'stop') {
    result.canceledRecordId = await requireFirstRecord(tx, cmd.runId, 'terminal', cmd.canceled);
  }
  return result;
}

/** A continuation needs a suspended predecessor with the same session, agent and parent, not yet continued. */
async function admitContinuation(tx: Queryable, cmd: RunStartCommand): Promise<void> {
  const predecessor = await findRun(tx, cmd.predecessorRunId!, true);
  if (!predecessor) throw new RunNotFoundError();
  if (predecessor.status !== 'suspended') throw new RunSuspensionNotFoundError();
  if (
    (predecessor.sessionId ?? '') !== (cmd.sessionId ?? '') ||
    predecessor.agentId !== cmd.agentId ||
    (predecessor.parentRunId ?? '') !== (cmd.parentRunId ?? '')
  ) {
    throw new RunMetadataConflictError();
  }
  const successor = await tx.query('SELECT 1 FROM runtime_runs WHERE predecessor_run_id = $1', [cmd.predecessorRunId]);
  if ((successor.rowCount ?? 0) > 0) throw new RunMetadataConflictError();
}

/** Writes a new run and its start records; stops it at once when its session has ended. */
async function writeStart(tx: Queryable, cmd: RunStartCommand, stop: boolean): Promise<RunStartResult> {
  // The run and its started record, sent together (pipelined) and written in that order.
  const [, started] = await Promise.all([
    insertRun(tx, {
      runId: cmd.runId,
      agentId: cmd.agentId,
      ...(cmd.sessionId ? { sessionId: cmd.sessionId } : {}),
      ...(cmd.parentRunId ? { parentRunId: cmd.parentRunId } : {}),
      ...(cmd.predecessorRunId ? { predecessorRunId: cmd.predecessorRunId } : {}),
      labels: cmd.labels ?? {},
      status: stop ? 'canceled' : 'running',
      startOutcome: stop ? 'stop' : 'proceed',
      cancellationReason: stop ? SESSION_ENDED_REASON : '',
      startedAt: cmd.startedAt,
      updatedAt: stop ? cmd.canceled.timestamp : cmd.startedAt,
    }),
    insertLifecycleRecord(tx, cmd.started, { change: 'start' }),
  ]);
  const result: RunStartResult = {
    decision: stop ? 'stop' : 'proceed',
    status: stop ? 'canceled' : 'running',
    startedRecordId: started.recordId,
    inserted: true,
  };
  if (stop) {
    const canceled = await insertLifecycleRecord(tx, cmd.canceled, { change: 'terminal' });
    result.canceledRecordId = canceled.recordId;
  }
  return result;
}

/**
 * One start, inside the caller's transaction. Locks follow the store's single order: session,
 * parent, predecessor, run.
 */
export async function startRunIn(tx: Queryable, cmd: RunStartCommand | ChildRunStartCommand, kind: StartKind): Promise<RunStartResult> {
  // Sent together (pipelined), and run in that order.
  const [session, parent, stored] = await Promise.all([
    cmd.sessionId ? requireLiveSession(tx, cmd.sessionId, true) : undefined,
    childKind(kind) ? lockRunForWrite(tx, cmd.parentRunId!) : undefined,
    findRun(tx, cmd.runId, true),
  ]);
  if (stored) return replayStart(tx, stored, cmd);

  let linkRecordId: string | undefined;
  if (parent) {
    // A child lives in its parent's session (or, one-shot, in none), and the link belongs to the parent.
    if ((parent.sessionId ?? '') !== (cmd.sessionId ?? '')) throw new RecordOwnerMismatchError();
    requireOwner((cmd as ChildRunStartCommand).link, parent, () => new RecordOwnerMismatchError());
    if (parent.status !== 'running') throw new RunNotActiveError();
  }
  if (cmd.predecessorRunId) await admitContinuation(tx, cmd);
  if (parent) {
    const link = (cmd as ChildRunStartCommand).link;
    linkRecordId = (await insertLifecycleRecord(tx, link, { change: 'link', subject: cmd.runId })).recordId;
  }
  const result = await writeStart(tx, cmd, session?.status === 'ended');
  return linkRecordId ? { ...result, linkRecordId } : result;
}
