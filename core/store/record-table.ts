import type { Queryable } from '../db/transaction';
import { EventConflictError, InvalidCursorError, InvalidStoreInputError, RecordOwnerMismatchError, RunNotActiveError, RunNotFoundError } from './errors';
import type { RecordInput, RecordWrite, RunStatus, StoredRecord } from './records';
import { findRun, type LifecycleChange } from './run-table';
import { requireOwner } from './validation';

interface RecordRow {
  record_id: string;
  run_id: string;
  event_key: string;
  agent_id: string;
  session_id: string | null;
  turn_id: string;
  record_type: string;
  payload: Buffer;
  recorded_at: Date;
}

const recordColumns = 'record_id, run_id, event_key, agent_id, session_id, turn_id, record_type, payload, recorded_at';

export function toStoredRecord(row: RecordRow): StoredRecord {
  return {
    id: String(row.record_id),
    key: row.event_key,
    runId: row.run_id,
    agentId: row.agent_id,
    ...(row.session_id !== null ? { sessionId: row.session_id } : {}),
    turnId: row.turn_id,
    type: row.record_type,
    timestamp: row.recorded_at,
    payload: row.payload,
  };
}

/** Names the first field in which a retry differs from the stored record, or undefined when equal. */
function firstDifference(stored: RecordRow, record: RecordInput): string | undefined {
  if (stored.agent_id !== record.agentId) return 'agent';
  if ((stored.session_id ?? '') !== (record.sessionId ?? '')) return 'session';
  if (stored.turn_id !== (record.turnId ?? '')) return 'turn';
  if (stored.record_type !== record.type) return 'type';
  if (stored.recorded_at.getTime() !== record.timestamp.getTime()) return 'timestamp';
  if (!Buffer.from(record.payload).equals(stored.payload)) return 'payload';
  return undefined;
}

export async function findRecordByKey(tx: Queryable, runId: string, key: string): Promise<RecordRow | undefined> {
  const found = await tx.query<RecordRow>(`SELECT ${recordColumns} FROM runtime_run_records WHERE run_id = $1 AND event_key = $2`, [runId, key]);
  return found.rows[0];
}

/** The stored record proves an exact retry of `record`: same id back, or an event conflict. */
export function requireExactRetry(stored: RecordRow, record: RecordInput): RecordWrite {
  const differs = firstDifference(stored, record);
  if (differs) throw new EventConflictError(`key ${record.key} was already used with a different ${differs}`);
  return { recordId: String(stored.record_id), inserted: false };
}

/** A record's columns in the order both write paths take them. */
const recordParams = (record: RecordInput) => [
  record.runId,
  record.key,
  record.agentId,
  record.sessionId ?? null,
  record.turnId ?? '',
  record.type,
  Buffer.from(record.payload),
  record.timestamp,
];

/** What a lifecycle change does to its run's row besides proving it with a record. */
export type RunRowChange = { status: RunStatus } | { cancellationReason: string };

/**
 * Inserts the record that proves a lifecycle change, remembers it as the change's first record, and
 * applies the change to the run's row: one statement. Callers hold the run's row lock and have
 * found the change unrecorded, so the record's key must be new: a key in use is an event conflict
 * (naming the first field that differs, when one does).
 */
export async function insertLifecycleRecord(
  tx: Queryable,
  record: RecordInput,
  lifecycle: { change: LifecycleChange; subject?: string; runRow?: RunRowChange },
): Promise<RecordWrite> {
  const row = lifecycle.runRow;
  const inserted = await tx.query<{ record_id: string }>(
    `WITH written AS (
       INSERT INTO runtime_run_records (run_id, event_key, agent_id, session_id, turn_id, record_type, payload, recorded_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (run_id, event_key) DO NOTHING
       RETURNING record_id
     ), remembered AS (
       INSERT INTO runtime_run_lifecycle (run_id, change, subject, record_id) SELECT $1, $9, $10, record_id FROM written
     ), changed AS (
       UPDATE runtime_runs SET status = coalesce($11::text, status), cancellation_reason = coalesce($12::text, cancellation_reason), updated_at = $8
       WHERE run_id = $1 AND ($11::text IS NOT NULL OR $12::text IS NOT NULL) AND EXISTS (SELECT 1 FROM written)
     )
     SELECT record_id FROM written`,
    [
      ...recordParams(record),
      lifecycle.change,
      lifecycle.subject ?? '',
      row && 'status' in row ? row.status : null,
      row && 'cancellationReason' in row ? row.cancellationReason : null,
    ],
  );
  const written = inserted.rows[0];
  if (written) return { recordId: String(written.record_id), inserted: true };
  const stored = await findRecordByKey(tx, record.runId, record.key);
  if (stored) requireExactRetry(stored, record);
  throw new EventConflictError(`key ${record.key} is already used`);
}

/**
 * Appends records of one run in one statement and returns the ids of those it inserted, by key.
 * It keeps the store's lock order, the records' session row and then the run row, and inserts only
 * while the run is running and owns the records: a row lock reads the run's latest committed
 * version, so a terminal change that committed while this statement waited stops it. Inserted
 * rows take their ids in the records' order.
 *
 * Migration 002's weft_append_run_record did this in PL/pgSQL, at about 15 % more per append. It
 * stays in the schema, taking the same locks in the same order, for processes of earlier releases
 * during a rolling deploy.
 */
async function insertAppends(db: Queryable, records: RecordInput[]): Promise<Map<string, string>> {
  const result = await db.query<{ event_key: string; record_id: string }>(
    // The one-time condition on the session's lock makes Postgres take it before the run's.
    `INSERT INTO runtime_run_records (run_id, event_key, agent_id, session_id, turn_id, record_type, payload, recorded_at)
     SELECT run.run_id, r.event_key, r.agent_id, r.session_id, r.turn_id, r.record_type, r.payload, r.recorded_at
     FROM runtime_runs run,
          ${records.length === 1 ? oneRecord : recordArrays} AS r(event_key, agent_id, session_id, turn_id, record_type, payload, recorded_at, position)
     WHERE run.run_id = $1 AND run.status = 'running'
       AND r.agent_id = run.agent_id AND coalesce(r.session_id, '') = coalesce(run.session_id, '')
       AND (SELECT count(*) FROM (SELECT 1 FROM runtime_sessions WHERE session_id = $9 FOR NO KEY UPDATE) AS locked_session) >= 0
     ORDER BY r.position
     FOR NO KEY UPDATE OF run
     ON CONFLICT (run_id, event_key) DO NOTHING
     RETURNING event_key, record_id`,
    [...(records.length === 1 ? recordParams(records[0]!) : [records[0]!.runId, ...recordColumnArrays(records)]), records[0]!.sessionId ?? null],
  );
  return new Map(result.rows.map((row) => [row.event_key, String(row.record_id)]));
}

// The record source of the append statement: one record's parameters as they are (the common
// case, cheapest to send), or one array per column with each record's position.
const oneRecord = '(VALUES ($2::text, $3::text, $4::text, $5::text, $6::text, $7::bytea, $8::timestamptz, 1))';
const recordArrays = 'unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bytea[], $8::timestamptz[]) WITH ORDINALITY';

/** The records' columns after the run id, one array per column, each in the records' order. */
export function recordColumnArrays(records: RecordInput[]): unknown[][] {
  const rows = records.map((record) => recordParams(record).slice(1));
  return rows[0]!.map((_, column) => rows.map((row) => row[column]));
}

/**
 * appendRunRecord's rules for records the statement did not insert, read after it so that what
 * another writer committed meanwhile is seen: the run must exist, the record's agent and session
 * must be the run's, and a key already used must be an exact retry (which succeeds even once the
 * run has stopped); a new key needs a running run.
 */
async function explainSkipped(db: Queryable, records: RecordInput[], insertedIds: Map<string, string>): Promise<RecordWrite[]> {
  const run = await findRun(db, records[0]!.runId);
  if (!run) throw new RunNotFoundError();
  const skippedKeys = records.map((record) => record.key).filter((key) => !insertedIds.has(key));
  const stored = await db.query<RecordRow>(`SELECT ${recordColumns} FROM runtime_run_records WHERE run_id = $1 AND event_key = ANY($2::text[])`, [
    run.runId,
    skippedKeys,
  ]);
  const storedByKey = new Map(stored.rows.map((row) => [row.event_key, row]));
  return records.map((record) => {
    requireOwner(record, run, () => new RecordOwnerMismatchError());
    const inserted = insertedIds.get(record.key);
    if (inserted) return { recordId: inserted, inserted: true };
    const earlier = storedByKey.get(record.key);
    if (earlier) return requireExactRetry(earlier, record);
    if (run.status !== 'running') throw new RunNotActiveError();
    throw new EventConflictError(`key ${record.key} is already used`);
  });
}

/** Appends one record of a run in one round trip (see insertAppends). */
export async function appendRecord(db: Queryable, record: RecordInput): Promise<RecordWrite> {
  const [write] = await appendRecords(db, [record]);
  return write!;
}

/** Appends several records of one run, in the order given, in one statement: their ids follow that order. */
export async function appendRecords(db: Queryable, records: RecordInput[]): Promise<RecordWrite[]> {
  if (records.length === 0) return [];
  const insertedIds = await insertAppends(db, records);
  if (insertedIds.size === records.length) return records.map((record) => ({ recordId: insertedIds.get(record.key)!, inserted: true }));
  return explainSkipped(db, records, insertedIds);
}

export interface RecordPage {
  records: StoredRecord[];
  nextCursor: string;
}

const maxRecordId = 2n ** 63n - 1n;

/** Cursors are record ids as the store returned them: positive integers in bigint range. */
function parseCursor(cursor: string): string | undefined {
  if (cursor === '') return undefined;
  if (!/^[1-9][0-9]{0,18}$/.test(cursor) || BigInt(cursor) > maxRecordId) throw new InvalidCursorError();
  return cursor;
}

/** One page oldest first; nextCursor is the last id returned, empty when nothing follows. */
export async function listRecordPage(
  tx: Queryable,
  filter: { column: 'run_id' | 'session_id'; value: string },
  cursor: string,
  limit: number,
): Promise<RecordPage> {
  if (!Number.isInteger(limit) || limit <= 0) throw new InvalidStoreInputError('limit must be > 0');
  const after = parseCursor(cursor) ?? '0';
  const rows = await tx.query<RecordRow>(
    `SELECT ${recordColumns} FROM runtime_run_records
     WHERE ${filter.column} = $1 AND record_id > $2
     ORDER BY record_id LIMIT $3`,
    [filter.value, after, limit + 1],
  );
  const page = rows.rows.slice(0, limit).map(toStoredRecord);
  const more = rows.rows.length > limit;
  return { records: page, nextCursor: more ? page[page.length - 1]!.id : '' };
}
