import type { Pool } from 'pg';
import type { Queryable } from '../db/transaction';
import { InvalidStoreInputError } from './errors';
import { appendRecord, findRecordByKey, listRecordPage, toStoredRecord, type RecordPage } from './record-table';
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
import {
  startRunIn,
  validateStart,
  type ChildRunStartCommand,
  type RunStartCommand,
  type RunStartResult,
  type StartKind,
} from './run-starts';
import { requireLiveSession, requireRun, type RunMeta, type Session } from './run-table';
import {
  createSessionIn,
  endSessionIn,
  listRunsBySessionIn,
  loadSessionStatusIn,
  purgeSessionIn,
} from './sessions';
import { storeTransaction } from './transactions';
import { requireDistinctKeys, requireId, validateRecordShape } from './validation';

/** Writes that must commit together with a newly applied lifecycle change (the task index, events). */
export type AlsoWrite<T> = (tx: Queryable, change: T) => Promise<unknown>;

/**
 * Weft's runtime store (Goa-AI's storage.Store on Postgres). Every lifecycle method is one
 * transaction that writes the state change and the record that proves it. Exact retries return the
 * original record ids and change nothing; any difference is a typed conflict.
 */
export interface RuntimeStore {
  createSession(id: string, createdAt: Date): Promise<Session>;
  loadSession(id: string): Promise<Session>;
  loadSessionStatus(id: string): Promise<Session['status']>;
  endSession(id: string, endedAt: Date): Promise<Session>;
  purgeSession(id: string, purgedAt?: Date): Promise<void>;
  listRunsBySession(id: string, statuses?: RunStatus[]): Promise<RunMeta[]>;

  startRootRun(cmd: RunStartCommand, alsoWrite?: AlsoWrite<RunStartResult>): Promise<RunStartResult>;
  startChildRun(cmd: ChildRunStartCommand, alsoWrite?: AlsoWrite<RunStartResult>): Promise<RunStartResult>;
  startOneShotRun(cmd: RunStartCommand, alsoWrite?: AlsoWrite<RunStartResult>): Promise<RunStartResult>;
  startOneShotChildRun(cmd: ChildRunStartCommand, alsoWrite?: AlsoWrite<RunStartResult>): Promise<RunStartResult>;
  recordRunCancellation(cmd: RunCancellationCommand, alsoWrite?: AlsoWrite<RecordWrite>): Promise<RecordWrite>;
  recordRunSuspension(cmd: RunSuspensionCommand, alsoWrite?: AlsoWrite<RecordWrite>): Promise<RecordWrite>;
  recordRunTerminal(cmd: RunTerminalCommand, alsoWrite?: AlsoWrite<RecordWrite>): Promise<RecordWrite>;
  appendRunRecord(record: RecordInput, alsoWrite?: AlsoWrite<RecordWrite>): Promise<RecordWrite>;
  /** Several records of one run, in order, in one transaction; each follows appendRunRecord's rules. */
  appendRunRecords(records: RecordInput[], alsoWrite?: AlsoWrite<RecordWrite[]>): Promise<RecordWrite[]>;

  loadRun(runId: string): Promise<RunMeta>;
  loadRunSuspension(runId: string): Promise<RunSuspension>;
  /** The record a run stored under `key`, if any (lets a retried step find its own earlier result). */
  findRunRecord(runId: string, key: string): Promise<StoredRecord | undefined>;
  listRunRecords(runId: string, cursor: string, limit: number): Promise<RecordPage>;
  listSessionRunRecords(sessionId: string, cursor: string, limit: number): Promise<RecordPage>;
}

function validateAppend(record: RecordInput): void {
  validateRecordShape(record, 'record');
  if (lifecycleRecordTypes.has(record.type)) {
    throw new InvalidStoreInputError(`${record.type} records are written by lifecycle methods only`);
  }
}

export function createRuntimeStore(pool: Pool): RuntimeStore {
  /** One transaction; `alsoWrite` joins it only when the change was newly applied. */
  const change = <T extends { inserted: boolean }>(
    write: (tx: Queryable) => Promise<T>,
    alsoWrite?: AlsoWrite<T>,
  ): Promise<T> =>
    storeTransaction(pool, async (tx) => {
      const result = await write(tx);
      if (result.inserted) await alsoWrite?.(tx, result);
      return result;
    });

  const start =
    (kind: StartKind) =>
    async (cmd: RunStartCommand | ChildRunStartCommand, alsoWrite?: AlsoWrite<RunStartResult>) => {
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
      records.forEach(validateAppend);
      if (new Set(records.map((r) => r.runId)).size > 1) throw new InvalidStoreInputError('a batch holds the records of one run');
      requireDistinctKeys(records);
      return storeTransaction(pool, async (tx) => {
        const written: RecordWrite[] = [];
        for (const record of records) written.push(await appendRecord(tx, record));
        if (written.some((w) => w.inserted)) await alsoWrite?.(tx, written);
        return written;
      });
    },

    loadRun: async (runId) => {
      requireId(runId, 'run id');
      return requireRun(pool, runId);
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
