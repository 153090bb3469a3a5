import type { Pool } from 'pg';
import type { Queryable } from '../db/transaction';
import { InvalidStoreInputError } from './errors';
import { appendRecord, appendRecords, findRecordByKey, listRecordPage, toStoredRecord, type RecordPage } from './record-table';
import { lifecycleRecordTypes, type RecordInput, type RecordWrite, type RunStatus, type StoredRecord } from './records';
import {
  loadSuspensionIn,
  recordCancellationIn,
  recordSuspensionIn,
  recordTerminalIn,
  validateCancellation,
  validateSuspension,
  validateTerminal,
  type RunCancellationCommand,
  type RunSuspension,
  type RunSuspensionCommand,
  type RunTerminalCommand,
} from './run-lifecycle';
import { startRunIn, validateStart, type ChildRunStartCommand, type RunStartCommand, type RunStartResult, type StartKind } from './run-starts';
import { publicRunMeta, requireLiveSession, requireRun, type RunMeta, type Session } from './run-table';
import { createSessionIn, endSessionIn, listRunsBySessionIn, loadSessionStatusIn, purgeSessionIn } from './sessions';
import { storeTransaction } from './transactions';
import { requireDistinctKeys, requireId, validateRecordShape } from './validation';

/**
 * Writes that must commit together with a newly applied lifecycle change (the task index, events).
 * They run last in the change's transaction, so they may end it with their own last statements
 * (commitWith in core/db/transaction.ts).
 */
export type AlsoWrite<T> = (tx: Queryable, change: T) => Promise<unknown>;

/**
 * Weft's runtime store (Goa-AI's storage.Store on Postgres). Every lifecycle method is one
 * transaction that writes the state change and the record that proves it; `alsoWrite` joins that
 * transaction only when the change is newly applied, so companion writes (the task index, events,
 * usage) commit exactly once. Records are unique per (run, key): an exact retry (same key, agent,
 * session, type, timestamp and payload bytes) returns the original record id with `inserted: false`
 * and changes nothing; any difference is an EventConflictError naming the field.
 *
 * Every error is a StoreError with a stable message and `permanent: true` (a retry cannot succeed).
 * Malformed input (missing ids or timestamps, records that contradict their command, lifecycle
 * payloads that are not one strict JSON object) is InvalidStoreInputError, raised before anything is
 * read. Database and network failures are not StoreErrors: they are thrown as they are, and retryable.
 */
export interface RuntimeStore {
  /**
   * Opens a session. Idempotent for an active session (returns it unchanged, first createdAt kept).
   * Errors: SessionEndedError, SessionPurgedError.
   */
  createSession(id: string, createdAt: Date): Promise<Session>;
  /** Reads a session. Errors: SessionNotFoundError, SessionPurgedError. */
  loadSession(id: string): Promise<Session>;
  /** A session's status ('active', 'ended' or 'purged'). Errors: SessionNotFoundError. */
  loadSessionStatus(id: string): Promise<Session['status']>;
  /**
   * Ends a session: later root and child starts in it record a canceled run instead of proceeding.
   * Idempotent, keeping the first endedAt. Errors: SessionNotFoundError, SessionPurgedError.
   */
  endSession(id: string, endedAt: Date): Promise<Session>;
  /**
   * Deletes an ended session's runs, checkpoints and records, leaving a tombstone (the id then
   * answers SessionPurgedError). Errors: SessionNotFoundError, SessionNotEndedError,
   * SessionHasActiveRunsError (running runs block it; suspended ones do not).
   */
  purgeSession(id: string, purgedAt?: Date): Promise<void>;
  /** The session's runs, optionally only those in `statuses`. Errors: SessionNotFoundError. */
  listRunsBySession(id: string, statuses?: RunStatus[]): Promise<RunMeta[]>;

  /**
   * Starts a run in a session: run meta + run_started, or, when the session has ended, the run
   * recorded canceled (session_ended) and `decision: 'stop'`. A retry returns the first decision.
   * With `predecessorRunId`, continues that suspended run (same session, agent, parent).
   * Errors: SessionNotFoundError, SessionPurgedError, RunMetadataConflictError (the id was started
   * differently), RunNotFoundError / RunSuspensionNotFoundError (predecessor), EventConflictError.
   */
  startRootRun(cmd: RunStartCommand, alsoWrite?: AlsoWrite<RunStartResult>): Promise<RunStartResult>;
  /**
   * Starts a child of a running parent in the parent's session, writing child_run_linked on the
   * parent with run_started on the child. Idempotent like startRootRun. Errors: startRootRun's, and
   * RecordOwnerMismatchError (session or link owner differ from the parent), RunNotActiveError
   * (parent not running), RunNotFoundError (no parent).
   */
  startChildRun(cmd: ChildRunStartCommand, alsoWrite?: AlsoWrite<RunStartResult>): Promise<RunStartResult>;
  /** startRootRun for a run outside any session (it always proceeds). */
  startOneShotRun(cmd: RunStartCommand, alsoWrite?: AlsoWrite<RunStartResult>): Promise<RunStartResult>;
  /** startChildRun for a child of a one-shot run. */
  startOneShotChildRun(cmd: ChildRunStartCommand, alsoWrite?: AlsoWrite<RunStartResult>): Promise<RunStartResult>;
  /**
   * Records why a running or suspended run is being cancelled (runtime.cancellation_intent); its
   * terminal record must then carry the same reason. Idempotent for the same reason.
   * Errors: RunCancellationReasonConflictError (another reason was recorded), RunNotActiveError,
   * RunNotFoundError, RecordOwnerMismatchError.
   */
  recordRunCancellation(cmd: RunCancellationCommand, alsoWrite?: AlsoWrite<RecordWrite>): Promise<RecordWrite>;
  /**
   * Suspends a running run with an opaque checkpoint (run_suspended). Idempotent for the same
   * checkpoint. Errors: RunSuspensionConflictError, RunNotActiveError, RunNotFoundError.
   */
  recordRunSuspension(cmd: RunSuspensionCommand, alsoWrite?: AlsoWrite<RecordWrite>): Promise<RecordWrite>;
  /**
   * Ends a run (status + run_completed). A canceled end must carry the recorded cancellation
   * reason, or engine_canceled when none was requested. Idempotent for the same record.
   * Errors: RunTerminalOutcomeConflictError (ended with another status),
   * RunCancellationReasonConflictError, EventConflictError (ended with another record),
   * RunNotFoundError, RecordOwnerMismatchError.
   */
  recordRunTerminal(cmd: RunTerminalCommand, alsoWrite?: AlsoWrite<RecordWrite>): Promise<RecordWrite>;
  /**
   * Appends one record to a run's log. Lifecycle record types are refused (only the methods above
   * write them). Idempotent by key. Errors: InvalidStoreInputError, RunNotFoundError,
   * RecordOwnerMismatchError, EventConflictError.
   */
  appendRunRecord(record: RecordInput, alsoWrite?: AlsoWrite<RecordWrite>): Promise<RecordWrite>;
  /** Several records of one run, in order, in one transaction; each follows appendRunRecord's rules. */
  appendRunRecords(records: RecordInput[], alsoWrite?: AlsoWrite<RecordWrite[]>): Promise<RecordWrite[]>;

  /** A run's metadata. Errors: RunNotFoundError. */
  loadRun(runId: string): Promise<RunMeta>;
  /** A suspended run's checkpoint. Errors: RunSuspensionNotFoundError. */
  loadRunSuspension(runId: string): Promise<RunSuspension>;
  /** The record a run stored under `key`, if any (lets a retried step find its own earlier result). */
  findRunRecord(runId: string, key: string): Promise<StoredRecord | undefined>;
  /** A page of a run's records, oldest first, after `cursor` ('' for the start). Errors: InvalidCursorError. */
  listRunRecords(runId: string, cursor: string, limit: number): Promise<RecordPage>;
  /** A page of a session's records across its runs, in commit order. Errors: SessionNotFoundError, SessionPurgedError, InvalidCursorError. */
  listSessionRunRecords(sessionId: string, cursor: string, limit: number): Promise<RecordPage>;
}

function validateAppend(record: RecordInput): void {
  validateRecordShape(record, 'record');
  if (lifecycleRecordTypes.has(record.type)) {
    throw new InvalidStoreInputError(`${record.type} records are written by lifecycle methods only`);
  }
}

/** appendRunRecords' rules for a batch, checked before anything is read: each record appendable, one run, distinct keys. */
export function validateAppendBatch(records: RecordInput[]): void {
  records.forEach(validateAppend);
  if (new Set(records.map((r) => r.runId)).size > 1) throw new InvalidStoreInputError('a batch holds the records of one run');
  requireDistinctKeys(records);
}

/** The store's reads: one query each, outside any transaction. */
function storeReads(pool: Pool): Pick<RuntimeStore, 'loadRun' | 'loadRunSuspension' | 'findRunRecord' | 'listRunRecords' | 'listSessionRunRecords'> {
  return {
    loadRun: async (runId) => {
      requireId(runId, 'run id');
      return publicRunMeta(await requireRun(pool, runId));
    },
    loadRunSuspension: (runId) => loadSuspensionIn(pool, runId),
    async findRunRecord(runId, key) {
      requireId(runId, 'run id');
      requireId(key, 'record key');
      const row = await findRecordByKey(pool, runId, key);
      return row ? toStoredRecord(row) : undefined;
    },
    listRunRecords: async (runId, cursor, limit) => {
      requireId(runId, 'run id');
      return listRecordPage(pool, { column: 'run_id', value: runId }, cursor, limit);
    },
    async listSessionRunRecords(sessionId, cursor, limit) {
      requireId(sessionId, 'session id');
      await requireLiveSession(pool, sessionId);
      return listRecordPage(pool, { column: 'session_id', value: sessionId }, cursor, limit);
    },
  };
}

export function createRuntimeStore(pool: Pool): RuntimeStore {
  /** One transaction; `alsoWrite` joins it only when the change was newly applied. */
  const change = <T extends { inserted: boolean }>(write: (tx: Queryable) => Promise<T>, alsoWrite?: AlsoWrite<T>): Promise<T> =>
    storeTransaction(pool, async (tx) => {
      const result = await write(tx);
      if (result.inserted) await alsoWrite?.(tx, result);
      return result;
    });

  const start = (kind: StartKind) => async (cmd: RunStartCommand | ChildRunStartCommand, alsoWrite?: AlsoWrite<RunStartResult>) => {
    validateStart(cmd, kind);
    return change((tx) => startRunIn(tx, cmd, kind), alsoWrite);
  };

  return {
    createSession: (id, createdAt) => storeTransaction(pool, (tx) => createSessionIn(tx, id, createdAt)),
    loadSession: async (id) => {
      requireId(id, 'session id');
      return requireLiveSession(pool, id);
    },
    loadSessionStatus: (id) => loadSessionStatusIn(pool, id),
    endSession: (id, endedAt) => storeTransaction(pool, (tx) => endSessionIn(tx, id, endedAt)),
    purgeSession: (id, purgedAt = new Date()) => storeTransaction(pool, (tx) => purgeSessionIn(tx, id, purgedAt)),
    listRunsBySession: (id, statuses) => listRunsBySessionIn(pool, id, statuses),

    startRootRun: start('root'),
    startChildRun: start('child'),
    startOneShotRun: start('oneShot'),
    startOneShotChildRun: start('oneShotChild'),

    async recordRunCancellation(cmd, alsoWrite) {
      validateCancellation(cmd);
      return change((tx) => recordCancellationIn(tx, cmd), alsoWrite);
    },
    async recordRunSuspension(cmd, alsoWrite) {
      validateSuspension(cmd);
      return change((tx) => recordSuspensionIn(tx, cmd), alsoWrite);
    },
    async recordRunTerminal(cmd, alsoWrite) {
      const payloadReason = validateTerminal(cmd);
      return change((tx) => recordTerminalIn(tx, cmd, payloadReason), alsoWrite);
    },
    async appendRunRecord(record, alsoWrite) {
      validateAppend(record);
      // Without companion writes the store function is atomic on its own: one round trip.
      if (!alsoWrite) return appendRecord(pool, record);
      return change((tx) => appendRecord(tx, record), alsoWrite);
    },
    async appendRunRecords(records, alsoWrite) {
      validateAppendBatch(records);
      return storeTransaction(pool, async (tx) => {
        const written = await appendRecords(tx, records);
        if (written.some((w) => w.inserted)) await alsoWrite?.(tx, written);
        return written;
      });
    },

    ...storeReads(pool),
  };
}
