import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Pool } from 'pg';
import { findTask, type TaskRecord } from '../core/tasks/task-index';
import { TaskStatus } from '../core/tasks/task-status';
import type { GetTaskStatusRequest__Output } from '../protos/generated/shannon/orchestrator/GetTaskStatusRequest';
import type { GetTaskStatusResponse } from '../protos/generated/shannon/orchestrator/GetTaskStatusResponse';
import type { OrchestratorServiceHandlers } from '../protos/generated/shannon/orchestrator/OrchestratorService';
import type { SubmitTaskRequest__Output } from '../protos/generated/shannon/orchestrator/SubmitTaskRequest';
import type { SubmitTaskResponse } from '../protos/generated/shannon/orchestrator/SubmitTaskResponse';
import {
  executionModeKey,
  sessionIdKey,
  taskStatusKey,
  tenantIdKey,
  userIdKey,
} from '../workflows/search-attributes';
import type { TaskWorkflowInput, taskWorkflow } from '../workflows/task-workflow';
import { invalidArgument, notFound } from './grpc-errors';
import { taskIdFor, workflowIdFor } from './task-ids';
import { unary } from './unary';

export interface OrchestratorDeps {
  temporal: Client;
  pool: Pool;
  taskQueue: string;
  maxQueryBytes: number;
}

function validateSubmit(request: SubmitTaskRequest__Output, maxQueryBytes: number): void {
  if (!request.query || request.query.trim() === '') throw invalidArgument('query is required');
  const bytes = Buffer.byteLength(request.query, 'utf8');
  if (bytes > maxQueryBytes) throw invalidArgument(`query is ${bytes} bytes; the limit is ${maxQueryBytes}`);
  const budget = request.metadata?.token_budget ?? 0;
  if (!Number.isFinite(budget) || budget < 0) throw invalidArgument('metadata.token_budget must be >= 0');
  if ((request.metadata?.max_agents ?? 0) < 0) throw invalidArgument('metadata.max_agents must be >= 0');
}

const progressOf: Record<TaskStatus, number> = {
  QUEUED: 0,
  RUNNING: 0.5,
  COMPLETED: 1,
  FAILED: 1,
  CANCELLED: 1,
  TIMEOUT: 1,
};

function statusResponse(task: TaskRecord): GetTaskStatusResponse {
  const finishedAt = task.completedAt ?? new Date();
  return {
    task_id: task.taskId,
    status: `TASK_STATUS_${task.status}`,
    progress: progressOf[task.status],
    result: task.result,
    error_message: task.errorMessage,
    metrics: {
      latency_ms: String(finishedAt.getTime() - task.createdAt.getTime()),
      token_usage: {
        prompt_tokens: task.usage.promptTokens,
        completion_tokens: task.usage.completionTokens,
        total_tokens: task.usage.totalTokens,
        cost_usd: task.usage.costUsd,
        model: task.usage.model,
      },
      agents_used: task.status === TaskStatus.Completed ? 1 : 0,
      mode: `EXECUTION_MODE_${task.mode}`,
    },
    agent_statuses: [],
  };
}

export function createOrchestratorService(deps: OrchestratorDeps): Partial<OrchestratorServiceHandlers> {
  return {
    SubmitTask: unary(async (request: SubmitTaskRequest__Output): Promise<SubmitTaskResponse> => {
      validateSubmit(request, deps.maxQueryBytes);
      const metadata = request.metadata;
      const taskId = taskIdFor(metadata?.task_id ?? '');
      const workflowId = workflowIdFor(taskId);
      const input: TaskWorkflowInput = {
        taskId,
        tenantId: metadata?.tenant_id ?? '',
        userId: metadata?.user_id ?? '',
        sessionId: metadata?.session_id ?? '',
        query: request.query,
      };
      let message = 'task submitted';
      try {
        await deps.temporal.workflow.start<typeof taskWorkflow>('taskWorkflow', {
          workflowId,
          taskQueue: deps.taskQueue,
          args: [input],
          // A task id names one workflow forever: a repeated submit finds it instead of starting another.
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          typedSearchAttributes: [
            { key: taskStatusKey, value: 'QUEUED' },
            { key: executionModeKey, value: 'STANDARD' },
            { key: userIdKey, value: input.userId },
            { key: sessionIdKey, value: input.sessionId },
            { key: tenantIdKey, value: input.tenantId },
          ],
        });
      } catch (err) {
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
        message = 'task already submitted; returning the existing workflow';
      }
      return {
        workflow_id: workflowId,
        task_id: taskId,
        status: 'STATUS_CODE_OK',
        decomposition: { mode: 'EXECUTION_MODE_STANDARD', agent_tasks: [] },
        message,
      };
    }),

    GetTaskStatus: unary(async (request: GetTaskStatusRequest__Output): Promise<GetTaskStatusResponse> => {
      if (!request.task_id) throw invalidArgument('task_id is required');
      const task = await findTask(deps.pool, request.task_id);
      if (task) return statusResponse(task);
      // Accepted by Temporal but not yet started by a worker: the index has no row yet.
      try {
        await deps.temporal.workflow.getHandle(workflowIdFor(request.task_id)).describe();
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) throw notFound(`task ${request.task_id} not found`);
        throw err;
      }
      return { task_id: request.task_id, status: 'TASK_STATUS_QUEUED', progress: 0, agent_statuses: [] };
    }),
  };
}
