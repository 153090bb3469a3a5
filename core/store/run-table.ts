import type { Queryable } from '../db/transaction';
import { RunNotFoundError, SessionNotFoundError, SessionPurgedError } from './errors';
import type { RunStatus } from './records';

export type SessionStatus = 'active' | 'ended' | 'purged';

export interface Session {
  id: string;
  status: SessionStatus;
  createdAt: Date;
  endedAt?: Date;
}

/**
 * A run as readers see it. A continuation's predecessor is not here: the seed stores that relation
 * once, in the successor's RunStarted record, and readers rebuild continuation history from it.
 */
export interface RunMeta {
  runId: string;
  agentId: string;
  sessionId?: string;
  parentRunId?: string;
  labels: Record<string, string>;
  status: RunStatus;
  startOutcome: 'proceed' | 'stop';
  cancellationReason: string;
  startedAt: Date;
  updatedAt: Date;
}

/** A run as the store itself checks it: the predecessor column enforces one successor per run. */
export interface StoredRun extends RunMeta {
  predecessorRunId?: string;
}

/** What a reader gets: the run without the store's own bookkeeping. */
export function publicRunMeta(run: StoredRun): RunMeta {
  const { predecessorRunId: _stored, ...meta } = run;
  return meta;
}

interface SessionRow {
  session_id: string;
  status: SessionStatus;
  created_at: Date;
  ended_at: Date | null;
}

interface RunRow {
  run_id: string;
  agent_id: string;
  session_id: string | null;
  parent_run_id: string | null;
  predecessor_run_id: string | null;
  labels: Record<string, string>;
  status: RunStatus;
  start_outcome: 'proceed' | 'stop';
  cancellation_reason: string;
  started_at: Date;
  updated_at: Date;
}

function toSession(row: SessionRow): Session {
  return {
    id: row.session_id,
    status: row.status,
    createdAt: row.created_at,
    ...(row.ended_at ? { endedAt: row.ended_at } : {}),
  };
}

function toStoredRun(row: RunRow): StoredRun {
  return {
    runId: row.run_id,
    agentId: row.agent_id,
    ...(row.session_id !== null ? { sessionId: row.session_id } : {}),
    ...(row.parent_run_id !== null ? { parentRunId: row.parent_run_id } : {}),
    ...(row.predecessor_run_id !== null ? { predecessorRunId: row.predecessor_run_id } : {}),
    labels: row.labels,
    status: row.status,
    startOutcome: row.start_outcome,
    cancellationReason: row.cancellation_reason,
    startedAt: row.started_at,
    updatedAt: row.updated_at,
  };
}

/** Reads a session, optionally locking its row; every record write locks session before run. */
export async function findSession(tx: Queryable, sessionId: string, lock = false): Promise<Session | undefined> {
  const found = await tx.query<SessionRow>(
    `SELECT session_id, status, created_at, ended_at FROM runtime_sessions WHERE session_id = $1${lock ? ' FOR UPDATE' : ''}`,
    [sessionId],
  );
  return found.rows[0] ? toSession(found.rows[0]) : undefined;
}

/** A session that exists and is not purged (locked when asked). */
export async function requireLiveSession(tx: Queryable, sessionId: string, lock = false): Promise<Session> {
  const session = await findSession(tx, sessionId, lock);
  if (!session) throw new SessionNotFoundError();
  if (session.status === 'purged') throw new SessionPurgedError();
  return session;
}

const runColumns = `run_id, agent_id, session_id, parent_run_id, predecessor_run_id, labels, status, start_outcome,
  cancellation_reason, started_at, updated_at`;

export async function findRun(tx: Queryable, runId: string, lock = false): Promise<StoredRun | undefined> {
  const found = await tx.query<RunRow>(`SELECT ${runColumns} FROM runtime_runs WHERE run_id = $1${lock ? ' FOR UPDATE' : ''}`, [runId]);
  return found.rows[0] ? toStoredRun(found.rows[0]) : undefined;
}

export async function findRunsBySession(db: Queryable, sessionId: string, statuses?: RunStatus[]): Promise<RunMeta[]> {
  const rows = await db.query<RunRow>(
    `SELECT ${runColumns} FROM runtime_runs WHERE session_id = $1 AND ($2::text[] IS NULL OR status = ANY($2))
     ORDER BY started_at, run_id`,
    [sessionId, statuses && statuses.length > 0 ? statuses : null],
  );
  return rows.rows.map((row) => publicRunMeta(toStoredRun(row)));
}

export async function requireRun(tx: Queryable, runId: string, lock = false): Promise<StoredRun> {
  const run = await findRun(tx, runId, lock);
  if (!run) throw new RunNotFoundError();
  return run;
}

/**
 * Locks a run for a record write in the one lock order used everywhere: its session row first,
 * then the run row. Session-wide record ids therefore follow commit order.
 */
export async function lockRunForWrite(tx: Queryable, runId: string): Promise<StoredRun> {
  // Sent together (pipelined), and run in this order.
  const [, run] = await Promise.all([lockSessionOfRun(tx, runId), requireRun(tx, runId, true)]);
  return run;
}

/** A run locked for a lifecycle change, and the record that first proved that change, if one did. */
export async function lockRunForChange(tx: Queryable, runId: string, change: LifecycleChange): Promise<{ run: StoredRun; firstRecordId?: string }> {
  // Sent together (pipelined): the read is a statement of its own, run once the session's lock is
  // granted, so its snapshot sees every change committed before it.
  const [, found] = await Promise.all([
    lockSessionOfRun(tx, runId),
    tx.query<RunRow & { first_record_id: string | null }>(
      `SELECT ${runColumns},
              (SELECT record_id FROM runtime_run_lifecycle WHERE run_id = $1 AND change = $2 AND subject = '') AS first_record_id
       FROM runtime_runs WHERE run_id = $1 FOR UPDATE`,
      [runId, change],
    ),
  ]);
  const row = found.rows[0];
  if (!row) throw new RunNotFoundError();
  return { run: toStoredRun(row), ...(row.first_record_id !== null ? { firstRecordId: String(row.first_record_id) } : {}) };
}

async function lockSessionOfRun(tx: Queryable, runId: string): Promise<void> {
  await tx.query('SELECT 1 FROM runtime_sessions WHERE session_id = (SELECT session_id FROM runtime_runs WHERE run_id = $1) FOR UPDATE', [runId]);
}

export async function insertRun(tx: Queryable, run: StoredRun): Promise<void> {
  await tx.query(
    `INSERT INTO runtime_runs (run_id, agent_id, session_id, parent_run_id, predecessor_run_id, labels, status,
                               start_outcome, cancellation_reason, started_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    [
      run.runId,
      run.agentId,
      run.sessionId ?? null,
      run.parentRunId ?? null,
      run.predecessorRunId ?? null,
      JSON.stringify(run.labels),
      run.status,
      run.startOutcome,
      run.cancellationReason,
      run.startedAt,
      run.updatedAt,
    ],
  );
}

export type LifecycleChange = 'start' | 'link' | 'cancellation' | 'suspension' | 'terminal';

/** The record that first proved a lifecycle change of a run (subject distinguishes child links). */
export async function findLifecycleRecordId(tx: Queryable, runId: string, change: LifecycleChange, subject = ''): Promise<string | undefined> {
  const found = await tx.query<{ record_id: string }>('SELECT record_id FROM runtime_run_lifecycle WHERE run_id = $1 AND change = $2 AND subject = $3', [
    runId,
    change,
    subject,
  ]);
  return found.rows[0] ? String(found.rows[0].record_id) : undefined;
}
