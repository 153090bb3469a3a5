import type { Pool } from 'pg';
import { withTransaction, type Queryable } from '../db/transaction';
import {
  EventConflictError,
  InvalidStoreInputError,
  RecordOwnerMismatchError,
  RunCancellationReasonConflictError,
  RunMetadataConflictError,
  RunNotActiveError,
  RunTerminalOutcomeConflictError,
  SessionEndedError,
  SessionNotFoundError,
} from './errors';
import { findRecordByKey, insertRecord, listRecordPage, requireExactRetry, type RecordPage } from './record-table';
import {
  RecordType,
  cancellationIntentPayload,
  decodeStrict,
  lifecycleRecordTypes,
  runCompletedPayload,
  runStartedPayload,
  type RecordInput,
  type RecordWrite,
  type RunStatus,
  type TerminalStatus,
} from './records';
import {
  findLifecycleRecordId,
  findRun,
  findSession,
  insertRun,
  lockRunForWrite,
  rememberLifecycleRecord,
  requireLiveSession,
  requireRun,
  updateRunStatus,
  type RunMeta,
  type Session,
} from './run-table';
import {
  requireDistinctKeys,
  requireId,
  requireOwner,
  requireRecordType,
  requireTimestamp,
  sameLabels,
  validateRecordShape,
} from './validation';

export const SESSION_ENDED_REASON = 'session_ended';
export const ENGINE_CANCELED_REASON = 'engine_canceled';

export interface RunStartCommand {
  runId: string;
  agentId: string;
  sessionId?: string;
  parentRunId?: string;
  predecessorRunId?: string;
  labels?: Record<string, string>;
  startedAt: Date;
  /** The run_started record. */
  started: RecordInput;
  /** The canceled run_completed written instead of proceeding when the session has ended. Always validated. */
  canceled: RecordInput;
}

export interface RunStartResult {
  /** The decision of the first start: a retry returns it unchanged. */
  decision: 'proceed' | 'stop';
  /** The run's status now. */
  status: RunStatus;
  startedRecordId: string;
  canceledRecordId?: string;
  inserted: boolean;
}

export interface RunTerminalCommand {
  runId: string;
  status: TerminalStatus;
  record: RecordInput;
}

export interface RunCancellationCommand {
  runId: string;
  reason: string;
  record: RecordInput;
}

/** Writes that must commit together with a newly applied lifecycle change (the task index, events). */
export type AlsoWrite<T> = (tx: Queryable, change: T) => Promise<void>;

export interface RuntimeStore {
  createSession(id: string, createdAt: Date): Promise<Session>;
  loadSession(id: string): Promise<Session>;
  loadSessionStatus(id: string): Promise<Session['status']>;
  endSession(id: string, endedAt: Date): Promise<Session>;
  startRootRun(cmd: RunStartCommand, alsoWrite?: AlsoWrite<RunStartResult>): Promise<RunStartResult>;
  startOneShotRun(cmd: RunStartCommand, alsoWrite?: AlsoWrite<RunStartResult>): Promise<RunStartResult>;
  recordRunCancellation(cmd: RunCancellationCommand): Promise<RecordWrite>;
  recordRunTerminal(cmd: RunTerminalCommand, alsoWrite?: AlsoWrite<RecordWrite>): Promise<RecordWrite>;
  appendRunRecord(record: RecordInput): Promise<RecordWrite>;
  loadRun(runId: string): Promise<RunMeta>;
  listRunRecords(runId: string, cursor: string, limit: number): Promise<RecordPage>;
}

function validateStart(cmd: RunStartCommand, sessionful: boolean): void {
  requireId(cmd.runId, 'run id');
  requireId(cmd.agentId, 'agent id');
  if (sessionful) requireId(cmd.sessionId, 'session id');
  else if (cmd.sessionId) throw new InvalidStoreInputError('one-shot runs have no session');
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
  const started = decodeStrict(runStartedPayload, cmd.started.payload, 'run_started');
  if (
    (started.parent_run_id ?? '') !== (cmd.parentRunId ?? '') ||
    (started.predecessor_run_id ?? '') !== (cmd.predecessorRunId ?? '') ||
    !sameLabels(started.labels, cmd.labels)
  ) {
    throw new InvalidStoreInputError('started record parent, predecessor and labels must equal the run');
  }
  const canceled = decodeStrict(runCompletedPayload, cmd.canceled.payload, 'run_completed');
  if (canceled.status !== 'canceled' || canceled.reason !== SESSION_ENDED_REASON) {
    throw new InvalidStoreInputError(`canceled record must have status canceled and reason ${SESSION_ENDED_REASON}`);
  }
}

function sameRunIdentity(stored: RunMeta, cmd: RunStartCommand): boolean {
  return (
    stored.agentId === cmd.agentId &&
    (stored.sessionId ?? '') === (cmd.sessionId ?? '') &&
    (stored.parentRunId ?? '') === (cmd.parentRunId ?? '') &&
    (stored.predecessorRunId ?? '') === (cmd.predecessorRunId ?? '') &&
    sameLabels(stored.labels, cmd.labels) &&
    stored.startedAt.getTime() === cmd.startedAt.getTime()
  );
}

/** A start that already happened: only an exact retry is accepted, and it changes nothing. */
async function replayStart(tx: Queryable, stored: RunMeta, cmd: RunStartCommand): Promise<RunStartResult> {
  if (!sameRunIdentity(stored, cmd)) throw new RunMetadataConflictError();
  const startedId = await findLifecycleRecordId(tx, cmd.runId, 'start');
  const started = await findRecordByKey(tx, cmd.runId, cmd.started.key);
  if (!started || String(started.record_id) !== startedId) {
    throw new EventConflictError('the run was started with another record');
  }
  requireExactRetry(started, cmd.started);
  const result: RunStartResult = {
    decision: stored.startOutcome,
    status: stored.status,
    startedRecordId: String(started.record_id),
    inserted: false,
  };
  if (stored.startOutcome === 'stop') {
    const canceled = await findRecordByKey(tx, cmd.runId, cmd.canceled.key);
    if (!canceled) throw new EventConflictError('the run was stopped with another record');
    result.canceledRecordId = requireExactRetry(canceled, cmd.canceled).recordId;
  }
  return result;
}

/** Writes a new run and its start records; stops it at once when its session has ended. */
async function writeStart(tx: Queryable, cmd: RunStartCommand, session: Session | undefined): Promise<RunStartResult> {
  const stop = session?.status === 'ended';
  await insertRun(tx, {
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
  });
  const started = await insertRecord(tx, cmd.started);
  await rememberLifecycleRecord(tx, cmd.runId, 'start', started.recordId);
  const result: RunStartResult = {
    decision: stop ? 'stop' : 'proceed',
    status: stop ? 'canceled' : 'running',
    startedRecordId: started.recordId,
    inserted: true,
  };
  if (stop) {
    const canceled = await insertRecord(tx, cmd.canceled);
    await rememberLifecycleRecord(tx, cmd.runId, 'terminal', canceled.recordId);
    result.canceledRecordId = canceled.recordId;
  }
  return result;
}

function validateTerminal(cmd: RunTerminalCommand): string | undefined {
  requireId(cmd.runId, 'run id');
  validateRecordShape(cmd.record, 'terminal record');
  requireRecordType(cmd.record, RecordType.RunCompleted, 'terminal record');
  if (cmd.record.runId !== cmd.runId) throw new RecordOwnerMismatchError();
  const payload = decodeStrict(runCompletedPayload, cmd.record.payload, 'run_completed');
  if (payload.status !== cmd.status) {
    throw new InvalidStoreInputError(`terminal record status ${payload.status} does not match ${cmd.status}`);
  }
  return payload.reason;
}

/** The three valid cancellation provenances; anything else is a reason conflict. */
function requireCancellationProvenance(run: RunMeta, payloadReason: string | undefined): void {
  const expected = run.cancellationReason === '' ? ENGINE_CANCELED_REASON : run.cancellationReason;
  if (payloadReason !== expected) throw new RunCancellationReasonConflictError();
}

export function createRuntimeStore(pool: Pool): RuntimeStore {
  const startRun = (sessionful: boolean) => async (cmd: RunStartCommand, alsoWrite?: AlsoWrite<RunStartResult>) => {
    validateStart(cmd, sessionful);
    return withTransaction(pool, async (tx) => {
      const session = cmd.sessionId ? await requireLiveSession(tx, cmd.sessionId, true) : undefined;
      const stored = await findRun(tx, cmd.runId, true);
      if (stored) return replayStart(tx, stored, cmd);
      const result = await writeStart(tx, cmd, session);
      await alsoWrite?.(tx, result);
      return result;
    });
  };

  return {
    async createSession(id, createdAt) {
      requireId(id, 'session id');
      requireTimestamp(createdAt, 'created at');
      return withTransaction(pool, async (tx) => {
        await tx.query(
          `INSERT INTO runtime_sessions (session_id, status, created_at) VALUES ($1, 'active', $2)
           ON CONFLICT (session_id) DO NOTHING`,
          [id, createdAt],
        );
        const session = await requireLiveSession(tx, id);
        if (session.status === 'ended') throw new SessionEndedError();
        return session;
      });
    },

    async loadSession(id) {
      requireId(id, 'session id');
      return requireLiveSession(pool, id);
    },

    async loadSessionStatus(id) {
      requireId(id, 'session id');
      const session = await findSession(pool, id);
      if (!session) throw new SessionNotFoundError();
      return session.status;
    },

    async endSession(id, endedAt) {
      requireId(id, 'session id');
      requireTimestamp(endedAt, 'ended at');
      return withTransaction(pool, async (tx) => {
        const session = await requireLiveSession(tx, id, true);
        if (session.status === 'ended') return session;
        await tx.query(`UPDATE runtime_sessions SET status = 'ended', ended_at = $2 WHERE session_id = $1`, [id, endedAt]);
        return { ...session, status: 'ended', endedAt };
      });
    },

    startRootRun: startRun(true),
    startOneShotRun: startRun(false),

    async recordRunCancellation(cmd) {
      requireId(cmd.runId, 'run id');
      requireId(cmd.reason, 'cancellation reason');
      validateRecordShape(cmd.record, 'cancellation record');
      requireRecordType(cmd.record, RecordType.CancellationIntent, 'cancellation record');
      const payload = decodeStrict(cancellationIntentPayload, cmd.record.payload, RecordType.CancellationIntent);
      if (payload.reason !== cmd.reason) throw new InvalidStoreInputError('cancellation record reason must match');
      return withTransaction(pool, async (tx) => {
        const run = await lockRunForWrite(tx, cmd.runId);
        requireOwner(cmd.record, run, () => new RecordOwnerMismatchError());
        const firstId = await findLifecycleRecordId(tx, cmd.runId, 'cancellation');
        if (firstId) {
          if (run.cancellationReason !== cmd.reason) throw new RunCancellationReasonConflictError();
          const stored = await findRecordByKey(tx, cmd.runId, cmd.record.key);
          if (!stored || String(stored.record_id) !== firstId) {
            throw new EventConflictError('the cancellation was recorded with another record');
          }
          return requireExactRetry(stored, cmd.record);
        }
        if (run.status !== 'running' && run.status !== 'suspended') throw new RunNotActiveError();
        const written = await insertRecord(tx, cmd.record);
        await tx.query('UPDATE runtime_runs SET cancellation_reason = $2, updated_at = $3 WHERE run_id = $1', [
          cmd.runId,
          cmd.reason,
          cmd.record.timestamp,
        ]);
        await rememberLifecycleRecord(tx, cmd.runId, 'cancellation', written.recordId);
        return written;
      });
    },

    async recordRunTerminal(cmd, alsoWrite) {
      const payloadReason = validateTerminal(cmd);
      return withTransaction(pool, async (tx) => {
        const run = await lockRunForWrite(tx, cmd.runId);
        requireOwner(cmd.record, run, () => new RecordOwnerMismatchError());
        const firstId = await findLifecycleRecordId(tx, cmd.runId, 'terminal');
        if (firstId) {
          if (run.status !== cmd.status) throw new RunTerminalOutcomeConflictError();
          const stored = await findRecordByKey(tx, cmd.runId, cmd.record.key);
          if (!stored || String(stored.record_id) !== firstId) {
            throw new EventConflictError('the run was ended with another record');
          }
          return requireExactRetry(stored, cmd.record);
        }
        if (cmd.status === 'canceled') requireCancellationProvenance(run, payloadReason);
        const written = await insertRecord(tx, cmd.record);
        await updateRunStatus(tx, cmd.runId, cmd.status, cmd.record.timestamp);
        await rememberLifecycleRecord(tx, cmd.runId, 'terminal', written.recordId);
        await alsoWrite?.(tx, written);
        return written;
      });
    },

    async appendRunRecord(record) {
      validateRecordShape(record, 'record');
      if (lifecycleRecordTypes.has(record.type)) {
        throw new InvalidStoreInputError(`${record.type} records are written by lifecycle methods only`);
      }
      return withTransaction(pool, async (tx) => {
        const run = await lockRunForWrite(tx, record.runId);
        requireOwner(record, run, () => new RecordOwnerMismatchError());
        const stored = await findRecordByKey(tx, record.runId, record.key);
        if (stored) return requireExactRetry(stored, record);
        if (run.status !== 'running') throw new RunNotActiveError();
        return insertRecord(tx, record);
      });
    },

    async loadRun(runId) {
      requireId(runId, 'run id');
      return requireRun(pool, runId);
    },

    async listRunRecords(runId, cursor, limit) {
      requireId(runId, 'run id');
      return listRecordPage(pool, { column: 'run_id', value: runId }, cursor, limit);
    },
  };
}
