import type { Pool } from 'pg';
import type { Principal } from '../core/auth/api-keys';
import { listTasks, sessionSpend, type TaskRecord } from '../core/tasks/task-index';
import type { TaskStatus } from '../core/tasks/task-status';
import type { GetSessionContextRequest__Output } from '../protos/generated/shannon/orchestrator/GetSessionContextRequest';
import type { GetSessionContextResponse } from '../protos/generated/shannon/orchestrator/GetSessionContextResponse';
import type { ListTasksRequest__Output } from '../protos/generated/shannon/orchestrator/ListTasksRequest';
import type { ListTasksResponse } from '../protos/generated/shannon/orchestrator/ListTasksResponse';
import type { TaskSummary } from '../protos/generated/shannon/orchestrator/TaskSummary';
import { invalidArgument, notFound } from './grpc-errors';
import { jsonToStruct, toTimestamp } from './struct';

const defaultLimit = 20;
const maxLimit = 100;
const recentTasks = 10;

function summary(task: TaskRecord): TaskSummary {
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
  if (request.limit < 0) throw invalidArgument('limit must be >= 0');
  if (request.limit > maxLimit) throw invalidArgument(`limit must be <= ${maxLimit}`);
  if (request.offset < 0) throw invalidArgument('offset must be >= 0');
  const status = request.filter_status === 'TASK_STATUS_UNSPECIFIED' ? undefined : (request.filter_status.replace('TASK_STATUS_', '') as TaskStatus);
  const { tasks, total } = await listTasks(pool, {
    tenantId: principal.tenantId,
    userId: request.user_id,
    sessionId: request.session_id,
    ...(status ? { status } : {}),
    limit: request.limit || defaultLimit,
    offset: request.offset,
  });
  return { tasks: tasks.map(summary), total_count: total };
}

/** A session's recent tasks and what it has spent, as far as the caller's tenant used it. */
export async function sessionContext(pool: Pool, request: GetSessionContextRequest__Output, principal: Principal): Promise<GetSessionContextResponse> {
  if (!request.session_id) throw invalidArgument('session_id is required');
  const { tasks, total } = await listTasks(pool, { tenantId: principal.tenantId, sessionId: request.session_id, limit: recentTasks, offset: 0 });
  if (total === 0) throw notFound(`session ${request.session_id} not found`);
  const spent = await sessionSpend(pool, principal.tenantId, request.session_id);
  return {
    session_id: request.session_id,
    // Session context (SessionService) is not stored yet: an empty Struct, not an invented one.
    context: jsonToStruct({}),
    recent_tasks: tasks.map(summary),
    session_token_usage: {
      prompt_tokens: spent.promptTokens,
      completion_tokens: spent.completionTokens,
      total_tokens: spent.totalTokens,
      cost_usd: spent.costUsd,
    },
  };
}
