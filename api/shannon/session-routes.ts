import { sessionEventsAnswer, sessionHistoryAnswer } from './shannon-schemas';
import { listTaskEvents } from '../../core/events/event-log';
import { findConversation } from '../../core/sessions/conversations';
import { ConversationClosedError } from '../../core/sessions/errors';
import { listTasks, type TaskRecord } from '../../core/tasks/task-index';
import type { Principal } from '../../core/auth/api-keys';
import type { Pool } from 'pg';
import { shannonEvent } from './task-routes';
import { integerParam, type ShannonRoute } from './shannon-route';

// A session's tasks as Shannon's gateway shows them: its history (one entry per task) and its
// events grouped into turns (one per task, with the task's stored events; live-only updates such as
// LLM_PARTIAL are never stored, so never here).

/** The tasks of the caller's open session, newest first; a deleted or another tenant's session is not found. */
async function sessionTasks(pool: Pool, principal: Principal, sessionId: string, page: { limit: number; offset: number }) {
  const conversation = await findConversation(pool, principal.tenantId, sessionId, new Date());
  if (conversation.status === 'closed') throw new ConversationClosedError(sessionId);
  return listTasks(pool, { tenantId: principal.tenantId, sessionId, ...page });
}

const pageOf = (query: Record<string, unknown>, fallback: number) => ({
  limit: integerParam(query, 'limit', fallback, { min: 1, max: 100 }),
  offset: integerParam(query, 'offset', 0, { min: 0, max: 1_000_000 }),
});

function historyItem(task: TaskRecord) {
  return {
    task_id: task.taskId,
    workflow_id: task.workflowId,
    query: task.query,
    status: task.status,
    mode: task.mode.toLowerCase(),
    result: task.result,
    ...(task.errorMessage ? { error: task.errorMessage } : {}),
    started_at: task.createdAt.toISOString(),
    ...(task.completedAt ? { completed_at: task.completedAt.toISOString() } : {}),
    total_tokens: task.usage.totalTokens,
    cost_usd: task.usage.costUsd,
  };
}

export const sessionRoutes: ShannonRoute[] = [
  {
    method: 'GET',
    path: '/api/v1/sessions/:session_id/history',
    answer: sessionHistoryAnswer,
    summary: "A session's tasks, newest first (limit 1-100, default 50; offset)",
    tag: 'sessions',
    query: ['limit', 'offset'],
    async handle({ principal, params, query }, deps) {
      const { tasks, total } = await sessionTasks(deps.pool, principal, params.session_id!, pageOf(query, 50));
      return { body: { session_id: params.session_id!, tasks: tasks.map(historyItem), total } };
    },
  },
  {
    method: 'GET',
    path: '/api/v1/sessions/:session_id/events',
    answer: sessionEventsAnswer,
    summary: "A session's turns, newest first (limit 1-100, default 10; offset): each task's query, answer and stored events",
    tag: 'sessions',
    query: ['limit', 'offset'],
    async handle({ principal, params, query }, deps) {
      const page = pageOf(query, 10);
      const { tasks, total } = await sessionTasks(deps.pool, principal, params.session_id!, page);
      const turns = await Promise.all(
        tasks.map(async (task, i) => ({
          // Turns count from the session's first task.
          turn: total - page.offset - i,
          task_id: task.taskId,
          user_query: task.query,
          final_output: task.result,
          timestamp: task.createdAt.toISOString(),
          events: (await listTaskEvents(deps.pool, task.workflowId)).map(shannonEvent),
          metadata: { status: task.status, mode: task.mode.toLowerCase(), total_tokens: task.usage.totalTokens, cost_usd: task.usage.costUsd },
        })),
      );
      return { body: { session_id: params.session_id!, turns, count: total } };
    },
  },
];
