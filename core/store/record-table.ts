import type { Queryable } from '../db/transaction';
import {
  EventConflictError,
  InvalidCursorError,
  InvalidStoreInputError,
  RecordOwnerMismatchError,
  RunNotActiveError,
  RunNotFoundError,
} from './errors';
import type { RecordInput, RecordWrite, RunStatus, StoredRecord } from './records';
import type { LifecycleChange } from './run-table';

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
  const found = await tx.query<RecordRow>(
    `SELECT ${recordColumns} FROM runtime_run_records WHERE run_id = $1 AND event_key = $2`,
    [runId, key],
  );
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

type AppendOutcome = 'inserted' | 'exists' | 'run_not_found' | 'owner_mismatch' | 'run_not_active';
type AppendRow = Omit<RecordRow, 'run_id' | 'event_key'> & { outcome: AppendOutcome };

const appendColumns = 'outcome, record_id, agent_id, session_id, turn_id, record_type, payload, recorded_at';

/** What weft_append_run_record said about one record, as the write or the store's typed error. */
function appendedWrite(row: AppendRow, record: RecordInput): RecordWrite {
  switch (row.outcome) {
    case 'inserted':
      return { recordId: String(row.record_id), inserted: true };
    case 'exists':
      return requireExactRetry({ ...row, run_id: record.runId, event_key: record.key }, record);
    case 'run_not_found':
      throw new RunNotFoundError();
    case 'owner_mismatch':
      throw new RecordOwnerMismatchError();
    case 'run_not_active':
      throw new RunNotActiveError();
  }
}

/**
 * appendRunRecord's rules in one round trip (see migration 002): lock session and run, check the
 * owner, return an existing record for exact-retry comparison, refuse a stopped run, insert.
 */
export async function appendRecord(db: Queryable, record: RecordInput): Promise<RecordWrite> {
  const result = await db.query<AppendRow>(`SELECT ${appendColumns} FROM weft_append_run_record($1, $2, $3, $4, $5, $6, $7, $8)`, recordParams(record));
  return appendedWrite(result.rows[0]!, record);
}

/**
 * Several records appended in order, in one round trip: the same function called once per record,
 * in the order given (a lateral call per array element), so their ids follow that order.
 */
export async function appendRecords(db: Queryable, records: RecordInput[]): Promise<RecordWrite[]> {
  if (records.length === 0) return [];
  const rows = records.map(recordParams);
  // One array per column, each in the records' order.
  const columns = rows[0]!.map((_, column) => rows.map((row) => row[column]));
  const result = await db.query<AppendRow>(
    `SELECT a.outcome, a.record_id, a.agent_id, a.session_id, a.turn_id, a.record_type, a.payload, a.recorded_at
     FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bytea[], $8::timestamptz[])
          WITH ORDINALITY AS r(run_id, event_key, agent_id, session_id, turn_id, record_type, payload, recorded_at, position)
     CROSS JOIN LATERAL weft_append_run_record(r.run_id, r.event_key, r.agent_id, r.session_id, r.turn_id, r.record_type, r.payload, r.recorded_at) AS a
     ORDER BY r.position`,
    columns,
  );
  return result.rows.map((row, index) => appendedWrite(row, records[index]!));
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
