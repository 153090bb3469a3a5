import type { Pool } from 'pg';
import type { Principal } from '../../../core/auth/api-keys';
import { listTaskEvents, type TaskEvent } from '../../../core/events/event-log';
import { EventType } from '../../../core/events/event-types';
import { findTask } from '../../../core/tasks/task-index';
import type { ExecuteTaskRequest__Output } from '../../../protos/generated/shannon/agent/ExecuteTaskRequest';
import type { ExecuteTaskResponse } from '../../../protos/generated/shannon/agent/ExecuteTaskResponse';
import type { ToolCall } from '../../../protos/generated/shannon/common/ToolCall';
import type { ToolResult } from '../../../protos/generated/shannon/common/ToolResult';
import type { TaskWorkflowInput, TaskWorkflowResult } from '../../../workflows/task-workflow-types';
import { invalid } from '../../tasks/task-errors';
import { jsonToStruct, jsonToValue } from '../struct';
import { taskInputFrom, type SubmissionLimits } from '../../tasks/task-submission';
import { taskSubmissionOf } from '../task-submission-of';

/** The longest an agent task may be given (config.timeout_seconds): a day. */
const maxTimeoutSeconds = 24 * 3600;

// AgentService runs one agent as a task workflow of its own (durable, visible in the Web UI, listed
// by ListTasks): STANDARD mode, only the tools the caller names, its iteration cap and timeout.

const maxEventsRead = 10_000;

/** Validates an ExecuteTask request and turns it into a single-agent task workflow's input. */
export function agentTaskInput(
  request: ExecuteTaskRequest__Output,
  caller: { taskId: string; principal: Principal },
  limits: SubmissionLimits,
): TaskWorkflowInput {
  if (request.mode === 'EXECUTION_MODE_COMPLEX') throw invalid('AgentService runs one agent; submit COMPLEX work with OrchestratorService.SubmitTask');
  const config = request.config;
  for (const [field, value] of Object.entries({ max_iterations: config?.max_iterations ?? 0, timeout_seconds: config?.timeout_seconds ?? 0 })) {
    if (value < 0) throw invalid(`config.${field} must be >= 0`);
  }
  if ((config?.timeout_seconds ?? 0) > maxTimeoutSeconds) throw invalid(`config.timeout_seconds must be at most ${maxTimeoutSeconds} (a day)`);
  if (Number(config?.memory_limit_mb ?? 0) < 0) throw invalid('config.memory_limit_mb must be >= 0');
  const toolNames = limits.toolNamesFor(caller.principal.tenantId);
  const unknownTools = request.available_tools.filter((name) => !toolNames.includes(name));
  if (unknownTools.length > 0) throw invalid(`unknown tools in available_tools: ${unknownTools.join(', ')} (see DiscoverTools)`);
  const input = taskInputFrom(taskSubmissionOf(request), caller, limits);
  if (input.manualPlan) throw invalid('AgentService runs one agent; templates run through OrchestratorService.SubmitTask');
  const maxIterations = config?.max_iterations ? Math.min(config.max_iterations, limits.taskDefaults.maxIterations * 10) : input.settings.maxIterations;
  // A lower cap for this agent's Python programs; the deployment's cap stays the ceiling.
  const memoryLimitMb = Number(config?.memory_limit_mb ?? 0);
  return {
    ...input,
    settings: { ...input.settings, maxIterations, maxAgents: 1, ...(memoryLimitMb > 0 ? { sandboxMemoryMb: memoryLimitMb } : {}) },
    ...(request.available_tools.length > 0 ? { allowedTools: request.available_tools } : {}),
  };
}

export function toolCallOf(event: TaskEvent): ToolCall {
  const payload = event.payload as { tool?: string; tool_call_id?: string; arguments?: Record<string, unknown> };
  return { name: payload.tool ?? '', parameters: jsonToStruct(payload.arguments ?? {}), tool_id: payload.tool_call_id ?? '' };
}

export function toolResultOf(event: TaskEvent): ToolResult {
  const payload = event.payload as { tool_call_id?: string; ok?: boolean; output?: unknown; error?: { message?: string }; duration_ms?: number };
  return {
    tool_id: payload.tool_call_id ?? '',
    output: jsonToValue(payload.output ?? null),
    status: payload.ok ? 'STATUS_CODE_OK' : 'STATUS_CODE_ERROR',
    error_message: payload.error?.message ?? '',
    execution_time_ms: String(payload.duration_ms ?? 0),
  };
}

function statusOf(result: TaskWorkflowResult, timedOut: boolean): ExecuteTaskResponse['status'] {
  if (result.status === 'COMPLETED') return 'STATUS_CODE_OK';
  if (timedOut || result.status === 'TIMEOUT') return 'STATUS_CODE_TIMEOUT';
  return result.code === 'BUDGET_EXCEEDED' ? 'STATUS_CODE_BUDGET_EXCEEDED' : 'STATUS_CODE_ERROR';
}

/** The finished agent task as the seed's ExecuteTaskResponse: result, tool calls and results, metrics. */
export async function executionResponse(
  pool: Pool,
  taskId: string,
  workflowId: string,
  outcome: { result: TaskWorkflowResult; timedOut: boolean },
): Promise<ExecuteTaskResponse> {
  const [task, events] = await Promise.all([findTask(pool, taskId), listTaskEvents(pool, workflowId, 0, maxEventsRead)]);
  const { result, timedOut } = outcome;
  return {
    task_id: taskId,
    status: statusOf(result, timedOut),
    result: result.result,
    tool_calls: events.filter((e) => e.type === EventType.ToolInvoked).map(toolCallOf),
    tool_results: events.filter((e) => e.type === EventType.ToolObservation).map(toolResultOf),
    metrics: {
      latency_ms: task?.completedAt ? String(task.completedAt.getTime() - task.createdAt.getTime()) : '0',
      token_usage: {
        prompt_tokens: task?.usage.promptTokens ?? 0,
        completion_tokens: task?.usage.completionTokens ?? 0,
        total_tokens: result.tokens,
        cost_usd: result.costUsd,
        model: result.modelUsed,
      },
      agents_used: 1,
      mode: 'EXECUTION_MODE_STANDARD',
    },
    error_message: result.errorMessage,
    final_state: result.status === 'COMPLETED' ? 'AGENT_STATE_COMPLETED' : 'AGENT_STATE_FAILED',
  };
}
