import { WorkflowFailedError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { Pool } from 'pg';
import type { Principal } from '../../core/auth/api-keys';
import { listTaskEvents, type TaskEvent } from '../../core/events/event-log';
import { EventType } from '../../core/events/event-types';
import { findTask } from '../../core/tasks/task-index';
import type { ExecuteTaskRequest__Output } from '../../protos/generated/shannon/agent/ExecuteTaskRequest';
import type { ExecuteTaskResponse } from '../../protos/generated/shannon/agent/ExecuteTaskResponse';
import type { ToolCall } from '../../protos/generated/shannon/common/ToolCall';
import type { ToolResult } from '../../protos/generated/shannon/common/ToolResult';
import { cancelTaskSignal, taskFailedType } from '../../workflows/messages';
import type { TaskWorkflowInput, TaskWorkflowResult } from '../../workflows/task-workflow-types';
import { invalidArgument } from '../grpc/grpc-errors';
import { jsonToStruct, jsonToValue } from '../grpc/struct';
import { taskInputFrom, type SubmissionLimits } from '../orchestrator/task-submission';
import { taskSubmissionOf } from '../grpc/task-submission-of';
import { log } from '../../core/telemetry/logger';

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
  if (request.mode === 'EXECUTION_MODE_COMPLEX') throw invalidArgument('AgentService runs one agent; submit COMPLEX work with OrchestratorService.SubmitTask');
  const config = request.config;
  for (const [field, value] of Object.entries({ max_iterations: config?.max_iterations ?? 0, timeout_seconds: config?.timeout_seconds ?? 0 })) {
    if (value < 0) throw invalidArgument(`config.${field} must be >= 0`);
  }
  if ((config?.timeout_seconds ?? 0) > maxTimeoutSeconds) throw invalidArgument(`config.timeout_seconds must be at most ${maxTimeoutSeconds} (a day)`);
  if (Number(config?.memory_limit_mb ?? 0) < 0) throw invalidArgument('config.memory_limit_mb must be >= 0');
  const toolNames = limits.toolNamesFor(caller.principal.tenantId);
  const unknownTools = request.available_tools.filter((name) => !toolNames.includes(name));
  if (unknownTools.length > 0) throw invalidArgument(`unknown tools in available_tools: ${unknownTools.join(', ')} (see DiscoverTools)`);
  const input = taskInputFrom(taskSubmissionOf(request), caller, limits);
  if (input.manualPlan) throw invalidArgument('AgentService runs one agent; templates run through OrchestratorService.SubmitTask');
  const maxIterations = config?.max_iterations ? Math.min(config.max_iterations, limits.taskDefaults.maxIterations * 10) : input.settings.maxIterations;
  // A lower cap for this agent's Python programs; the deployment's cap stays the ceiling.
  const memoryLimitMb = Number(config?.memory_limit_mb ?? 0);
  return {
    ...input,
    settings: { ...input.settings, maxIterations, maxAgents: 1, ...(memoryLimitMb > 0 ? { sandboxMemoryMb: memoryLimitMb } : {}) },
    ...(request.available_tools.length > 0 ? { allowedTools: request.available_tools } : {}),
  };
}

/**
 * After `timeoutSeconds` (0: never) the task is cancelled with a reason that says so. `clear` stops
 * the clock once the caller no longer needs it.
 */
export function cancelOnTimeout(temporal: Client, workflowId: string, timeoutSeconds: number): { timedOut(): boolean; clear(): void } {
  let timedOut = false;
  const timer =
    timeoutSeconds > 0
      ? setTimeout(() => {
          timedOut = true;
          temporal.workflow
            .getHandle(workflowId)
            .signal(cancelTaskSignal, { reason: `timed out after ${timeoutSeconds} s (config.timeout_seconds)` })
            .catch((err: unknown) => log().error({ err, workflowId }, 'cancelling a timed-out agent task failed'));
        }, timeoutSeconds * 1000)
      : undefined;
  return { timedOut: () => timedOut, clear: () => clearTimeout(timer) };
}

/**
 * Waits for the workflow's result, cancelling the task at its timeout. A call that goes away
 * (`abandoned`) stops the waiting, not the task: it stays durable and can be read with GetTaskStatus.
 */
export async function awaitAgentResult(
  temporal: Client,
  workflowId: string,
  timeoutSeconds: number,
  abandoned: AbortSignal,
): Promise<{ result: TaskWorkflowResult; timedOut: boolean }> {
  const timeout = cancelOnTimeout(temporal, workflowId, timeoutSeconds);
  try {
    const result = await Promise.race([
      taskResult(temporal.workflow.getHandle(workflowId).result()),
      new Promise<never>((_, reject) => abandoned.addEventListener('abort', () => reject(abandoned.reason), { once: true })),
    ]);
    return { result, timedOut: timeout.timedOut() };
  } finally {
    timeout.clear();
  }
}

/** A task's result whether it succeeded or failed (a failed task fails its workflow, with the result as details). */
async function taskResult(workflowResult: Promise<unknown>): Promise<TaskWorkflowResult> {
  try {
    return (await workflowResult) as TaskWorkflowResult;
  } catch (err) {
    const cause = err instanceof WorkflowFailedError ? err.cause : undefined;
    if (cause instanceof ApplicationFailure && cause.type === taskFailedType && cause.details?.[0]) return cause.details[0] as TaskWorkflowResult;
    throw err;
  }
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
