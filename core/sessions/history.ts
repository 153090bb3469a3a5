import type { Pool } from 'pg';
import type { Queryable } from '../db/transaction';
import { withOpenConversation } from './conversations';
import { MessageConflictError } from './errors';

// A conversation's history: messages in order, trimmed to the newest max_history on every append.

export type MessageRole = 'user' | 'assistant' | 'system';

export interface HistoryMessage {
  id: string;
  role: MessageRole;
  content: string;
  tokensUsed: number;
  metadata: Record<string, unknown>;
  createdAt: Date;
}

interface MessageRow {
  message_id: string;
  role: MessageRole;
  content: string;
  tokens_used: number;
  metadata: Record<string, unknown>;
  created_at: Date;
}

const fromRow = (row: MessageRow): HistoryMessage => ({
  id: row.message_id,
  role: row.role,
  content: row.content,
  tokensUsed: row.tokens_used,
  metadata: row.metadata,
  createdAt: row.created_at,
});

/** The tenant's session history; another tenant's session has none. */
export async function listHistory(db: Queryable, tenantId: string, sessionId: string): Promise<HistoryMessage[]> {
  const { rows } = await db.query<MessageRow>(
    `SELECT m.* FROM conversation_messages m JOIN conversations c ON c.session_id = m.session_id
     WHERE m.session_id = $1 AND c.tenant_id = $2 ORDER BY m.position`,
    [sessionId, tenantId],
  );
  return rows.map(fromRow);
}

/**
 * Appends messages in order and trims the oldest beyond max_history. An id already stored with the
 * same role and content is an exact retry and is not added again; with different content it is a
 * conflict. Returns the history size afterwards.
 */
export async function appendMessagesIn(tx: Queryable, sessionId: string, maxHistory: number, messages: readonly HistoryMessage[]): Promise<number> {
  for (const message of messages) {
    const inserted = await tx.query(
      `INSERT INTO conversation_messages (session_id, message_id, role, content, tokens_used, metadata, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (session_id, message_id) DO NOTHING`,
      [sessionId, message.id, message.role, message.content, message.tokensUsed, message.metadata, message.createdAt],
    );
    if (inserted.rowCount === 0) {
      const { rows } = await tx.query<MessageRow>('SELECT * FROM conversation_messages WHERE session_id = $1 AND message_id = $2', [sessionId, message.id]);
      // Trimmed away since: the retry has nothing left to compare with and nothing to add.
      if (rows[0] && (rows[0].role !== message.role || rows[0].content !== message.content)) throw new MessageConflictError(message.id);
    }
  }
  await tx.query(
    `DELETE FROM conversation_messages WHERE session_id = $1 AND position NOT IN
       (SELECT position FROM conversation_messages WHERE session_id = $1 ORDER BY position DESC LIMIT $2)`,
    [sessionId, maxHistory],
  );
  const { rows } = await tx.query<{ size: string }>('SELECT count(*) AS size FROM conversation_messages WHERE session_id = $1', [sessionId]);
  return Number(rows[0]!.size);
}

/** The history of the session a task runs in, as the task's own tenant sees it (another tenant's session has none). */
export async function listTaskSessionHistory(db: Queryable, taskId: string): Promise<HistoryMessage[]> {
  const { rows } = await db.query<MessageRow>(
    `SELECT m.* FROM tasks t
       JOIN conversations c ON c.session_id = t.session_id AND c.tenant_id = t.tenant_id
       JOIN conversation_messages m ON m.session_id = c.session_id
     WHERE t.task_id = $1 ORDER BY m.position`,
    [taskId],
  );
  return rows.map(fromRow);
}

export function addMessages(pool: Pool, tenantId: string, sessionId: string, messages: readonly HistoryMessage[], now: Date): Promise<number> {
  return withOpenConversation(pool, tenantId, sessionId, now, (tx, conversation) => appendMessagesIn(tx, sessionId, conversation.maxHistory, messages));
}

/** Empties the history; the context stays only when asked to. */
export function clearHistory(pool: Pool, tenantId: string, sessionId: string, keepContext: boolean, now: Date): Promise<void> {
  return withOpenConversation(pool, tenantId, sessionId, now, async (tx) => {
    await tx.query('DELETE FROM conversation_messages WHERE session_id = $1', [sessionId]);
    if (!keepContext) await tx.query(`UPDATE conversations SET context = '{}' WHERE session_id = $1`, [sessionId]);
  });
}

/**
 * A completed task's turn (its query, then its answer) joins the history of the conversation session
 * it ran in, when the task's tenant owns that session and it is still open. Keyed by the task, so a
 * retried finish adds nothing.
 */
export async function recordTaskTurnIn(tx: Queryable, turn: { taskId: string; sessionId: string; answer: string; at: Date }): Promise<void> {
  const { rows } = await tx.query<{ query: string; max_history: number }>(
    `SELECT t.query, c.max_history FROM tasks t JOIN conversations c ON c.session_id = t.session_id AND c.tenant_id = t.tenant_id
     WHERE t.task_id = $1 AND t.session_id = $2 AND c.closed_at IS NULL AND c.expires_at > $3
     FOR UPDATE OF c`,
    [turn.taskId, turn.sessionId, turn.at],
  );
  const session = rows[0];
  if (!session) return;
  const message = (suffix: string, role: MessageRole, content: string): HistoryMessage => ({
    id: `${turn.taskId}/${suffix}`,
    role,
    content,
    tokensUsed: 0,
    metadata: { task_id: turn.taskId },
    createdAt: turn.at,
  });
  await appendMessagesIn(tx, turn.sessionId, session.max_history, [message('query', 'user', session.query), message('answer', 'assistant', turn.answer)]);
  await tx.query('UPDATE conversations SET last_active = greatest(last_active, $2) WHERE session_id = $1', [turn.sessionId, turn.at]);
}
