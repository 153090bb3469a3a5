import { randomUUID } from 'node:crypto';
import type { SessionDefaults } from '../../tasks/session-defaults';
import type { Pool } from 'pg';
import {
  closeConversation,
  createConversation,
  findConversation,
  listConversations,
  updateConversation,
  type Conversation,
} from '../../../core/sessions/conversations';
import { ConversationClosedError, ConversationExpiredError } from '../../../core/sessions/errors';
import { addMessages, clearHistory, listHistory, type HistoryMessage } from '../../../core/sessions/history';
import { sessionSpend, unfinishedTasksInSession } from '../../../core/tasks/task-index';
import type { RunningTasks } from '../../tasks/running-tasks';
import type { Message__Output } from '../../../protos/generated/shannon/session/Message';
import type { Session } from '../../../protos/generated/shannon/session/Session';
import type { SessionServiceHandlers } from '../../../protos/generated/shannon/session/SessionService';
import type { CreateSessionRequest__Output } from '../../../protos/generated/shannon/session/CreateSessionRequest';
import type { Principal } from '../../../core/auth/api-keys';
import type { Authenticator } from '../../tasks/auth';
import { actingUser } from '../../tasks/acting-user';
import { invalid } from '../../tasks/task-errors';
import { pageOf } from '../paging';
import { fromTimestamp, jsonToStruct, structToJson, toTimestamp } from '../struct';
import { authorized } from '../unary';

export type { SessionDefaults };

export interface SessionDeps {
  pool: Pool;
  auth: Authenticator;
  sessions: SessionDefaults;
  /** DeleteSession cancels the session's unfinished tasks. */
  running: RunningTasks;
}

// Documented limits (docs/guides/auth-and-tenants.md, "Input limits"): each keeps one request to a few milliseconds of work.
const maxTtlSeconds = 365 * 24 * 3600;
const maxHistoryLimit = 1_000;
const maxMessageBytes = 256 * 1024;
const maxContextBytes = 64 * 1024;
const roles = new Set(['user', 'assistant', 'system']);
const ok = { status: 'STATUS_CODE_OK' as const };

/** Asks each unfinished task of the session to cancel; the number asked. A task that ended meanwhile is skipped. */
async function cancelSessionTasks(running: RunningTasks, pool: Pool, tenantId: string, sessionId: string): Promise<number> {
  const workflowIds = await unfinishedTasksInSession(pool, tenantId, sessionId);
  const asked = await Promise.all(workflowIds.map((workflowId) => running.cancel(workflowId, `session ${sessionId} was deleted`)));
  return asked.filter(Boolean).length;
}

function requireSessionId(sessionId: string): string {
  if (!sessionId) throw invalid('session_id is required');
  return sessionId;
}

/** A session context (or an update of one) within the context limit. */
function boundedContext(struct: Parameters<typeof structToJson>[0], field: string): Record<string, unknown> {
  const context = structToJson(struct);
  const bytes = Buffer.byteLength(JSON.stringify(context), 'utf8');
  if (bytes > maxContextBytes) throw invalid(`${field} is ${bytes} bytes as JSON; the limit is ${maxContextBytes}`);
  return context;
}

/** A count that may be omitted (0: the default) but never negative or absurd. */
function optionalCount(value: number, field: string, max: number): number {
  if (value < 0) throw invalid(`${field} must be >= 0`);
  if (value > max) throw invalid(`${field} must be <= ${max}`);
  return value;
}

function historyMessageFrom(message: Message__Output | null): HistoryMessage {
  if (!message) throw invalid('message is required');
  if (!roles.has(message.role)) throw invalid(`message.role must be user, assistant or system, got "${message.role}"`);
  if (!message.content) throw invalid('message.content is required');
  const bytes = Buffer.byteLength(message.content, 'utf8');
  if (bytes > maxMessageBytes) throw invalid(`message.content is ${bytes} bytes; the limit is ${maxMessageBytes}`);
  // Ids with "/" name a task's turns (<task_id>/query, <task_id>/answer); a caller may not take them.
  if (message.id.includes('/')) throw invalid('message.id may not contain "/"');
  if (message.tokens_used < 0) throw invalid('message.tokens_used must be >= 0');
  const createdAt = message.timestamp ? fromTimestamp(message.timestamp) : new Date();
  if (Number.isNaN(createdAt.getTime())) throw invalid('message.timestamp is out of range');
  return {
    id: message.id || randomUUID(),
    role: message.role as HistoryMessage['role'],
    content: message.content,
    tokensUsed: message.tokens_used,
    metadata: structToJson(message.metadata),
    createdAt,
  };
}

async function sessionMessage(pool: Pool, conversation: Conversation, includeHistory: boolean): Promise<Session> {
  const [history, spent] = await Promise.all([
    listHistory(pool, conversation.tenantId, conversation.sessionId),
    sessionSpend(pool, conversation.tenantId, conversation.sessionId),
  ]);
  return {
    id: conversation.sessionId,
    user_id: conversation.userId,
    context: jsonToStruct(conversation.context),
    history: includeHistory
      ? history.map((m) => ({
          id: m.id,
          role: m.role,
          content: m.content,
          timestamp: toTimestamp(m.createdAt),
          tokens_used: m.tokensUsed,
          metadata: jsonToStruct(m.metadata),
        }))
      : [],
    created_at: toTimestamp(conversation.createdAt),
    last_active: toTimestamp(conversation.lastActive),
    expires_at: toTimestamp(conversation.expiresAt),
    metrics: {
      total_messages: history.length,
      total_tokens: history.reduce((sum, m) => sum + m.tokensUsed, 0) + spent.totalTokens,
      total_cost_usd: spent.costUsd,
      total_tasks: spent.tasks,
    },
  };
}

/** CreateSession: a conversation of the caller's tenant, with the request's TTL and history limit or the defaults. */
async function createSession(deps: SessionDeps, request: CreateSessionRequest__Output, principal: Principal) {
  const ttl = optionalCount(request.ttl_seconds, 'ttl_seconds', maxTtlSeconds) || deps.sessions.ttlSeconds;
  const maxHistory = optionalCount(request.max_history, 'max_history', maxHistoryLimit) || deps.sessions.maxHistory;
  const conversation = await createConversation(
    deps.pool,
    {
      sessionId: randomUUID(),
      tenantId: principal.tenantId,
      userId: actingUser(principal, request.user_id, 'user_id').userId,
      context: boundedContext(request.initial_context, 'initial_context'),
      maxHistory,
      ttlSeconds: ttl,
    },
    new Date(),
  );
  return {
    session_id: conversation.sessionId,
    created_at: toTimestamp(conversation.createdAt),
    expires_at: toTimestamp(conversation.expiresAt),
    ...ok,
    message: 'session created',
  };
}

export function createSessionService(deps: SessionDeps): SessionServiceHandlers {
  const { pool, auth } = deps;
  return {
    CreateSession: authorized(auth, async (request, principal) => createSession(deps, request, principal)),

    GetSession: authorized(auth, async (request, principal) => {
      const conversation = await findConversation(pool, principal.tenantId, requireSessionId(request.session_id), new Date());
      // As AddMessage and UpdateSession answer: a deleted or expired session is not found.
      if (conversation.status === 'closed') throw new ConversationClosedError(conversation.sessionId);
      if (conversation.status === 'expired') throw new ConversationExpiredError(conversation.sessionId, conversation.expiresAt);
      return { session: await sessionMessage(pool, conversation, request.include_history), ...ok, message: '' };
    }),

    UpdateSession: authorized(auth, async (request, principal) => {
      const extend = optionalCount(request.extend_ttl_seconds, 'extend_ttl_seconds', maxTtlSeconds);
      const conversation = await updateConversation(
        pool,
        principal.tenantId,
        requireSessionId(request.session_id),
        { contextUpdates: boundedContext(request.context_updates, 'context_updates'), extendTtlSeconds: extend },
        new Date(),
      );
      return { success: true, new_expires_at: toTimestamp(conversation.expiresAt), ...ok, message: 'session updated' };
    }),

    DeleteSession: authorized(auth, async (request, principal) => {
      const sessionId = requireSessionId(request.session_id);
      await closeConversation(pool, principal.tenantId, sessionId, new Date());
      // Its tasks end too, also one waiting for an approval (which then expires with it).
      const cancelled = await cancelSessionTasks(deps.running, pool, principal.tenantId, sessionId);
      return { success: true, ...ok, message: cancelled > 0 ? `session deleted; ${cancelled} unfinished task(s) cancelled` : 'session deleted' };
    }),

    ListSessions: authorized(auth, async (request, principal) => {
      const { sessions, total } = await listConversations(
        pool,
        { tenantId: principal.tenantId, userId: request.user_id, activeOnly: request.active_only, ...pageOf(request) },
        new Date(),
      );
      return {
        sessions: sessions.map((s) => ({
          id: s.sessionId,
          user_id: s.userId,
          created_at: toTimestamp(s.createdAt),
          last_active: toTimestamp(s.lastActive),
          message_count: s.messageCount,
          total_tokens: s.totalTokens,
          is_active: s.status === 'active',
        })),
        total_count: total,
        ...ok,
        message: '',
      };
    }),

    AddMessage: authorized(auth, async (request, principal) => {
      const message = historyMessageFrom(request.message);
      const size = await addMessages(pool, principal.tenantId, requireSessionId(request.session_id), [message], new Date());
      return { success: true, history_size: size, ...ok, message: 'message added' };
    }),

    ClearHistory: authorized(auth, async (request, principal) => {
      await clearHistory(pool, principal.tenantId, requireSessionId(request.session_id), request.keep_context, new Date());
      return { success: true, ...ok, message: request.keep_context ? 'history cleared; context kept' : 'history and context cleared' };
    }),
  };
}
