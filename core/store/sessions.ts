import type { Queryable } from '../db/transaction';
import { SessionEndedError, SessionHasActiveRunsError, SessionNotEndedError, SessionNotFoundError } from './errors';
import type { RunStatus } from './records';
import { findRunsBySession, findSession, requireLiveSession, type RunMeta, type Session } from './run-table';
import { requireId, requireTimestamp } from './validation';

/** Creating an active session again returns it unchanged; an ended or purged one is refused. */
export async function createSessionIn(tx: Queryable, id: string, createdAt: Date): Promise<Session> {
  requireId(id, 'session id');
  requireTimestamp(createdAt, 'created at');
  await tx.query(
    `INSERT INTO runtime_sessions (session_id, status, created_at) VALUES ($1, 'active', $2)
     ON CONFLICT (session_id) DO NOTHING`,
    [id, createdAt],
  );
  const session = await requireLiveSession(tx, id);
  if (session.status === 'ended') throw new SessionEndedError();
  return session;
}

/** Ending is idempotent and keeps the first endedAt. */
export async function endSessionIn(tx: Queryable, id: string, endedAt: Date): Promise<Session> {
  requireId(id, 'session id');
  requireTimestamp(endedAt, 'ended at');
  const session = await requireLiveSession(tx, id, true);
  if (session.status === 'ended') return session;
  await tx.query(`UPDATE runtime_sessions SET status = 'ended', ended_at = $2 WHERE session_id = $1`, [id, endedAt]);
  return { ...session, status: 'ended', endedAt };
}

/**
 * Deletes an ended session's runs, checkpoints and records and leaves a tombstone, so the id answers
 * `session purged` forever. Running runs block it; suspended ones do not.
 */
export async function purgeSessionIn(tx: Queryable, id: string, purgedAt: Date): Promise<void> {
  requireId(id, 'session id');
  const session = await findSession(tx, id, true);
  if (!session) throw new SessionNotFoundError();
  if (session.status === 'purged') return;
  if (session.status !== 'ended') throw new SessionNotEndedError();
  const running = await tx.query(`SELECT 1 FROM runtime_runs WHERE session_id = $1 AND status = 'running' LIMIT 1`, [id]);
  if ((running.rowCount ?? 0) > 0) throw new SessionHasActiveRunsError();
  await tx.query('DELETE FROM runtime_runs WHERE session_id = $1', [id]);
  await tx.query(`UPDATE runtime_sessions SET status = 'purged', purged_at = $2 WHERE session_id = $1`, [id, purgedAt]);
}

export async function loadSessionStatusIn(db: Queryable, id: string): Promise<Session['status']> {
  requireId(id, 'session id');
  const session = await findSession(db, id);
  if (!session) throw new SessionNotFoundError();
  return session.status;
}

export async function listRunsBySessionIn(db: Queryable, id: string, statuses?: RunStatus[]): Promise<RunMeta[]> {
  requireId(id, 'session id');
  await requireLiveSession(db, id);
  return findRunsBySession(db, id, statuses);
}
