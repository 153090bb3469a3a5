import type { Pool } from 'pg';
import type { Queryable } from '../db/transaction';
import { createSessionIn } from '../store/sessions';
import { storeTransaction } from '../store/transactions';
import { claimSession } from './session-tenants';
import { ConversationClosedError, ConversationNotFoundError } from './errors';

// Sessions as Shannon's gateway has them: a task that names a session id the caller has not created
// opens it, and a session has a title. Underneath each is a conversation (conversations.ts), so its
// history, lifetime and deletion are the same as a SessionService session's.

/** Titles are short labels (Shannon allows 60 characters). */
export const maxTitleLength = 60;

export interface OpenedSession {
  sessionId: string;
  tenantId: string;
  userId: string;
  ttlSeconds: number;
  maxHistory: number;
}

/**
 * Opens the tenant's session `sessionId` unless it is open already; a deleted one stays deleted
 * (ConversationClosedError), another tenant's is not found.
 */
export async function openNamedSession(pool: Pool, session: OpenedSession, now: Date): Promise<void> {
  await storeTransaction(pool, async (tx) => {
    if (!(await claimSession(tx, session.tenantId, session.sessionId))) throw new ConversationNotFoundError(session.sessionId);
    const { rows } = await tx.query<{ closed_at: Date | null }>('SELECT closed_at FROM conversations WHERE session_id = $1', [session.sessionId]);
    if (rows[0]?.closed_at) throw new ConversationClosedError(session.sessionId);
    if (rows[0]) return;
    await createSessionIn(tx, session.sessionId, now);
    await tx.query(
      `INSERT INTO conversations (session_id, tenant_id, user_id, context, max_history, created_at, last_active, expires_at)
       VALUES ($1, $2, $3, '{}', $4, $5, $5, $5::timestamptz + make_interval(secs => $6))
       ON CONFLICT (session_id) DO NOTHING`,
      [session.sessionId, session.tenantId, session.userId, session.maxHistory, now, session.ttlSeconds],
    );
  });
}

/** Sets the title of the tenant's open session. */
export async function retitleSession(db: Queryable, tenantId: string, sessionId: string, title: string): Promise<void> {
  const { rowCount } = await db.query('UPDATE conversations SET title = $3 WHERE session_id = $1 AND tenant_id = $2 AND closed_at IS NULL', [
    sessionId,
    tenantId,
    title,
  ]);
  if (!rowCount) throw new ConversationNotFoundError(sessionId);
}

/** What Shannon's session views add to a session: its title and what its tasks did. */
export interface SessionProfile {
  title: string;
  taskCount: number;
  successfulTasks: number;
  failedTasks: number;
  totalTokens: number;
  costUsd: number;
  latestTaskQuery?: string;
  latestTaskStatus?: string;
  lastTaskAt?: Date;
}

/** The profiles of the tenant's sessions among `sessionIds`, by id (an id of another tenant's is absent). */
export async function sessionProfiles(db: Queryable, tenantId: string, sessionIds: string[]): Promise<Map<string, SessionProfile>> {
  const { rows } = await db.query<{
    session_id: string;
    title: string;
    task_count: string;
    successful: string;
    failed: string;
    tokens: string;
    cost: number;
    latest_query: string | null;
    latest_status: string | null;
    last_task_at: Date | null;
  }>(
    `SELECT c.session_id, c.title,
            count(t.task_id) AS task_count,
            count(t.task_id) FILTER (WHERE t.status = 'COMPLETED') AS successful,
            count(t.task_id) FILTER (WHERE t.status IN ('FAILED', 'TIMEOUT')) AS failed,
            coalesce(sum(t.total_tokens), 0) AS tokens, coalesce(sum(t.cost_usd), 0)::float8 AS cost,
            (array_agg(t.query ORDER BY t.created_at DESC))[1] AS latest_query,
            (array_agg(t.status ORDER BY t.created_at DESC))[1] AS latest_status,
            max(t.created_at) AS last_task_at
     FROM conversations c LEFT JOIN tasks t ON t.tenant_id = c.tenant_id AND t.session_id = c.session_id
     WHERE c.tenant_id = $1 AND c.session_id = ANY($2)
     GROUP BY c.session_id, c.title`,
    [tenantId, sessionIds],
  );
  return new Map(
    rows.map((row) => [
      row.session_id,
      {
        title: row.title,
        taskCount: Number(row.task_count),
        successfulTasks: Number(row.successful),
        failedTasks: Number(row.failed),
        totalTokens: Number(row.tokens),
        costUsd: row.cost,
        ...(row.latest_query !== null ? { latestTaskQuery: row.latest_query } : {}),
        ...(row.latest_status !== null ? { latestTaskStatus: row.latest_status } : {}),
        ...(row.last_task_at ? { lastTaskAt: row.last_task_at } : {}),
      },
    ]),
  );
}
