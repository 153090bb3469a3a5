import type { Pool } from 'pg';
import type { Principal } from '../../../core/auth/api-keys';
import { findConversation } from '../../../core/sessions/conversations';
import { ConversationNotFoundError } from '../../../core/sessions/errors';
import { listTasks, sessionSpend, type TaskRecord } from '../../../core/tasks/task-index';
import type { TaskStatus } from '../../../core/tasks/task-status';
import type { GetSessionContextRequest__Output } from '../../../protos/generated/shannon/orchestrator/GetSessionContextRequest';
import type { GetSessionContextResponse } from '../../../protos/generated/shannon/orchestrator/GetSessionContextResponse';
import type { ListTasksRequest__Output } from '../../../protos/generated/shannon/orchestrator/ListTasksRequest';
import type { ListTasksResponse } from '../../../protos/generated/shannon/orchestrator/ListTasksResponse';
import type { TaskSummary } from '../../../protos/generated/shannon/orchestrator/TaskSummary';
import { invalid, notFound } from '../../tasks/task-errors';
import { pageOf } from '../paging';
import { jsonToStruct, toTimestamp } from '../struct';

const recentTasks = 10;

export function taskSummaryOf(task: TaskRecord): TaskSummary {
  return {
    task_id: task.taskId,
    query: task.query,
    status: `TASK_STATUS_${task.status}`,
    mode: `EXECUTION_MODE_${task.mode}`,
    created_at: toTimestamp(task.createdAt),
    ...(task.completedAt ? { completed_at: toTimestamp(task.completedAt) } : {}),
    total_token_usage: {
      prompt_tokens: task.usage.promptTokens,
      completion_tokens: task.usage.completionTokens,
      total_tokens: task.usage.totalTokens,
      cost_usd: task.usage.costUsd,
      model: task.usage.model,
    },
  };
}

export async function listTaskSummaries(pool: Pool, request: ListTasksRequest__Output, principal: Principal): Promise<ListTasksResponse> {
  const status = request.filter_status === 'TASK_STATUS_UNSPECIFIED' ? undefined : (request.filter_status.replace('TASK_STATUS_', '') as TaskStatus);
  const { tasks, total } = await listTasks(pool, {
    tenantId: principal.tenantId,
    userId: request.user_id,
    sessionId: request.session_id,
    ...(status ? { status } : {}),
    ...pageOf(request),
  });
  return { tasks: tasks.map(taskSummaryOf), total_count: total };
}

/** A session's stored context (SessionService), recent tasks and what it has spent, as far as the caller's tenant used it. */
export async function sessionContext(pool: Pool, request: GetSessionContextRequest__Output, principal: Principal): Promise<GetSessionContextResponse> {
  if (!request.session_id) throw invalid('session_id is required');
  const [{ tasks, total }, conversation] = await Promise.all([
    listTasks(pool, { tenantId: principal.tenantId, sessionId: request.session_id, limit: recentTasks, offset: 0 }),
    findConversation(pool, principal.tenantId, request.session_id, new Date()).catch((err: unknown) => {
      if (err instanceof ConversationNotFoundError) return undefined;
      throw err;
    }),
  ]);
  if (total === 0 && (!conversation || conversation.status === 'closed')) throw notFound(`session ${request.session_id} not found`);
  const spent = await sessionSpend(pool, principal.tenantId, request.session_id);
  return {
    session_id: request.session_id,
    context: jsonToStruct(conversation?.context ?? {}),
    recent_tasks: tasks.map(taskSummaryOf),
    session_token_usage: {
      prompt_tokens: spent.promptTokens,
      completion_tokens: spent.completionTokens,
      total_tokens: spent.totalTokens,
      cost_usd: spent.costUsd,
    },
  };
}
