import type { Pool } from 'pg';
import type { Queryable } from '../db/transaction';
import { createSessionIn, endSessionIn, loadSessionStatusIn } from '../store/sessions';
import { claimSession } from './session-tenants';
import { storeTransaction } from '../store/transactions';
import { ConversationClosedError, ConversationEndedError, ConversationExpiredError, ConversationNotFoundError } from './errors';
import { SessionNotFoundError } from '../store/errors';

// Conversation sessions (SessionService, ai.AIService): a runtime session with an owner, a context,
// a lifetime and a history. Every change is one transaction; closing or expiring one ends its
// runtime session so the tasks running in it see that.

export type ConversationStatus = 'active' | 'expired' | 'closed';

export interface Conversation {
  sessionId: string;
  tenantId: string;
  userId: string;
  context: Record<string, unknown>;
  maxHistory: number;
  model: string;
  botUsername: string;
  createdAt: Date;
  lastActive: Date;
  expiresAt: Date;
  status: ConversationStatus;
}

export interface NewConversation {
  sessionId: string;
  tenantId: string;
  userId: string;
  context: Record<string, unknown>;
  maxHistory: number;
  ttlSeconds: number;
  model?: string;
  botUsername?: string;
}

interface ConversationRow {
  session_id: string;
  tenant_id: string;
  user_id: string;
  context: Record<string, unknown>;
  max_history: number;
  model: string;
  bot_username: string;
  created_at: Date;
  last_active: Date;
  expires_at: Date;
  closed_at: Date | null;
}

function statusAt(row: ConversationRow, now: Date): ConversationStatus {
  if (row.closed_at) return 'closed';
  return row.expires_at.getTime() <= now.getTime() ? 'expired' : 'active';
}

function fromRow(row: ConversationRow, now: Date): Conversation {
  return {
    sessionId: row.session_id,
    tenantId: row.tenant_id,
    userId: row.user_id,
    context: row.context,
    maxHistory: row.max_history,
    model: row.model,
    botUsername: row.bot_username,
    createdAt: row.created_at,
    lastActive: row.last_active,
    expiresAt: row.expires_at,
    status: statusAt(row, now),
  };
}

export async function createConversation(pool: Pool, input: NewConversation, now: Date): Promise<Conversation> {
  return storeTransaction(pool, async (tx) => {
    if (!(await claimSession(tx, input.tenantId, input.sessionId))) throw new Error(`session id ${input.sessionId} belongs to another tenant`);
    await createSessionIn(tx, input.sessionId, now);
    const { rows } = await tx.query<ConversationRow>(
      `INSERT INTO conversations (session_id, tenant_id, user_id, context, max_history, model, bot_username, created_at, last_active, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8, $8::timestamptz + make_interval(secs => $9))
       RETURNING *`,
      [input.sessionId, input.tenantId, input.userId, input.context, input.maxHistory, input.model ?? '', input.botUsername ?? '', now, input.ttlSeconds],
    );
    return fromRow(rows[0]!, now);
  });
}

/** The tenant's conversation, whatever its status; another tenant's is not found. */
export async function findConversation(db: Queryable, tenantId: string, sessionId: string, now: Date, lock = false): Promise<Conversation> {
  const { rows } = await db.query<ConversationRow>(`SELECT * FROM conversations WHERE session_id = $1 AND tenant_id = $2${lock ? ' FOR UPDATE' : ''}`, [
    sessionId,
    tenantId,
  ]);
  if (!rows[0]) throw new ConversationNotFoundError(sessionId);
  return fromRow(rows[0], now);
}

/**
 * Runs `work` on an active conversation inside one transaction (the row locked). A conversation found
 * past its expiry has its runtime session ended first, in a transaction of its own that commits even
 * though the caller then gets ConversationExpiredError.
 */
export async function withOpenConversation<T>(
  pool: Pool,
  tenantId: string,
  sessionId: string,
  now: Date,
  work: (tx: Queryable, conversation: Conversation) => Promise<T>,
): Promise<T> {
  const outcome = await storeTransaction(pool, async (tx): Promise<{ expiredAt: Date } | { value: T }> => {
    const conversation = await findConversation(tx, tenantId, sessionId, now, true);
    if (conversation.status === 'closed') throw new ConversationClosedError(sessionId);
    if (conversation.status === 'expired') {
      await endSessionIn(tx, sessionId, conversation.expiresAt);
      return { expiredAt: conversation.expiresAt };
    }
    await tx.query('UPDATE conversations SET last_active = $2 WHERE session_id = $1', [sessionId, now]);
    return { value: await work(tx, { ...conversation, lastActive: now }) };
  });
  if ('expiredAt' in outcome) throw new ConversationExpiredError(sessionId, outcome.expiredAt);
  return outcome.value;
}

/** Merges `contextUpdates` into the context (top-level keys replace) and extends the expiry. */
export function updateConversation(
  pool: Pool,
  tenantId: string,
  sessionId: string,
  change: { contextUpdates: Record<string, unknown>; extendTtlSeconds: number },
  now: Date,
): Promise<Conversation> {
  return withOpenConversation(pool, tenantId, sessionId, now, async (tx) => {
    const { rows } = await tx.query<ConversationRow>(
      `UPDATE conversations SET context = context || $2::jsonb, expires_at = expires_at + make_interval(secs => $3)
       WHERE session_id = $1 RETURNING *`,
      [sessionId, change.contextUpdates, change.extendTtlSeconds],
    );
    return fromRow(rows[0]!, now);
  });
}

/** Closing is idempotent; the runtime session ends with it. */
export function closeConversation(pool: Pool, tenantId: string, sessionId: string, now: Date): Promise<void> {
  return storeTransaction(pool, async (tx) => {
    const conversation = await findConversation(tx, tenantId, sessionId, now, true);
    if (conversation.status === 'closed') return;
    await tx.query('UPDATE conversations SET closed_at = $2 WHERE session_id = $1', [sessionId, now]);
    await endSessionIn(tx, sessionId, now);
  });
}

export interface ConversationSummary extends Conversation {
  messageCount: number;
  totalTokens: number;
}

/** The tenant's open or expired conversations (closed ones are gone), newest first. */
export async function listConversations(
  db: Queryable,
  filter: { tenantId: string; userId: string; activeOnly: boolean; limit: number; offset: number },
  now: Date,
): Promise<{ sessions: ConversationSummary[]; total: number }> {
  const where = `c.tenant_id = $1 AND ($2 = '' OR c.user_id = $2) AND c.closed_at IS NULL AND (NOT $3 OR c.expires_at > $4)`;
  const params = [filter.tenantId, filter.userId, filter.activeOnly, now];
  const [page, count] = await Promise.all([
    db.query<ConversationRow & { message_count: string; total_tokens: string }>(
      `SELECT c.*, count(m.position) AS message_count, coalesce(sum(m.tokens_used), 0) AS total_tokens
       FROM conversations c LEFT JOIN conversation_messages m ON m.session_id = c.session_id
       WHERE ${where} GROUP BY c.session_id ORDER BY c.created_at DESC, c.session_id LIMIT $5 OFFSET $6`,
      [...params, filter.limit, filter.offset],
    ),
    db.query<{ total: string }>(`SELECT count(*) AS total FROM conversations c WHERE ${where}`, params),
  ]);
  return {
    sessions: page.rows.map((row) => ({ ...fromRow(row, now), messageCount: Number(row.message_count), totalTokens: Number(row.total_tokens) })),
    total: Number(count.rows[0]!.total),
  };
}

/**
 * Ends the runtime session of a conversation whose TTL passed by `at`, so work started in it from
 * then on is refused like work in a deleted one. Idempotent; a session that is no conversation is left alone.
 */
export function endIfExpired(pool: Pool, sessionId: string, at: Date): Promise<void> {
  return storeTransaction(pool, async (tx) => {
    const { rows } = await tx.query<{ expires_at: Date }>('SELECT expires_at FROM conversations WHERE session_id = $1 AND closed_at IS NULL FOR UPDATE', [
      sessionId,
    ]);
    const expiresAt = rows[0]?.expires_at;
    if (expiresAt && expiresAt.getTime() <= at.getTime()) await endSessionIn(tx, sessionId, expiresAt);
  });
}

/**
 * New work (a task) may start in a session unless it was deleted, has expired or has ended; a
 * session first named by a task has no conversation and is opened by the task itself.
 */
export async function requireSessionOpenForWork(pool: Pool, tenantId: string, sessionId: string, now: Date): Promise<void> {
  try {
    await withOpenConversation(pool, tenantId, sessionId, now, async () => undefined);
  } catch (err) {
    if (!(err instanceof ConversationNotFoundError)) throw err;
  }
  const status = await loadSessionStatusIn(pool, sessionId).catch((err: unknown) => {
    if (err instanceof SessionNotFoundError) return 'active';
    throw err;
  });
  if (status !== 'active') throw new ConversationEndedError(sessionId);
}
