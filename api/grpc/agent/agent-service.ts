import { totalmem } from 'node:os';
import { authenticateCall, idempotencyKeyIn } from '../callers';
import { type Metadata, type ServerUnaryCall, type ServerWritableStream } from '@grpc/grpc-js';
import type { Principal } from '../../../core/auth/api-keys';
import type { TaskEvent } from '../../../core/events/event-log';
import { EventType } from '../../../core/events/event-types';
import { countRunningTasks, findTask } from '../../../core/tasks/task-index';
import { weftVersion } from '../../../core/version';
import type { AgentServiceHandlers } from '../../../protos/generated/shannon/agent/AgentService';
import type { ExecuteTaskRequest__Output } from '../../../protos/generated/shannon/agent/ExecuteTaskRequest';
import type { TaskUpdate } from '../../../protos/generated/shannon/agent/TaskUpdate';
import { agentTaskInput, executionResponse, toolCallOf, toolResultOf } from './agent-execution';
import { awaitAgentResult, cancelOnTimeout } from '../../tasks/task-result';
import { TaskError } from '../../tasks/task-errors';
import type { OrchestratorDeps } from '../orchestrator/orchestrator-service';
import { tailTaskEvents, type EventTailDeps } from '../../tasks/task-event-tail';
import { startTaskWorkflow, submittedTaskId } from '../../tasks/task-start';
import { requestFingerprint } from '../../tasks/request-fingerprint';
import type { TenantAdmission } from '../../tasks/tenant-admission';
import { submissionLimits } from '../../tasks/task-submission';
import { discoverTools, toolCapabilityOf } from './tool-capabilities';
import { authorized, authorizedCall, send, serverStream } from '../unary';
import { streamLifetime } from '../stream-lifetime';

export type AgentDeps = OrchestratorDeps & EventTailDeps & { sandboxMemoryMb: number };

const startedAt = Date.now();

/** Ends a wait when the call is cancelled by its client or its deadline passes. */
function abandonedSignal(call: ServerUnaryCall<unknown, unknown>): AbortSignal {
  const abandoned = new AbortController();
  call.on('cancelled', () => abandoned.abort(new TaskError('cancelled', 'the call was cancelled; the agent task keeps running')));
  return abandoned.signal;
}

const stateOf: Partial<Record<string, TaskUpdate['state']>> = {
  [EventType.WorkflowStarted]: 'AGENT_STATE_PLANNING',
  [EventType.ApprovalRequested]: 'AGENT_STATE_WAITING',
  [EventType.WorkflowCompleted]: 'AGENT_STATE_COMPLETED',
  [EventType.WorkflowFailed]: 'AGENT_STATE_FAILED',
  [EventType.WorkflowCancelled]: 'AGENT_STATE_FAILED',
};

function agentUpdate(taskId: string, event: TaskEvent): TaskUpdate {
  const state = stateOf[event.type] ?? 'AGENT_STATE_EXECUTING';
  return {
    task_id: taskId,
    state,
    message: event.message,
    ...(event.type === EventType.ToolInvoked ? { tool_call: toolCallOf(event) } : {}),
    ...(event.type === EventType.ToolObservation ? { tool_result: toolResultOf(event) } : {}),
    progress: state === 'AGENT_STATE_COMPLETED' || state === 'AGENT_STATE_FAILED' ? 1 : 0,
  };
}

export interface AgentService {
  handlers: AgentServiceHandlers;
  /** Ends open StreamExecuteTask streams (their tasks keep running); for a graceful shutdown. */
  endAll(): void;
}

/** HealthCheck: Postgres and Temporal probed, the tenant's running tasks, uptime and memory. */
async function healthOf(deps: AgentDeps, principal: Principal) {
  const problems: string[] = [];
  const activeTasks = await countRunningTasks(deps.pool, principal.tenantId).catch((err: unknown) => {
    problems.push(`postgres: ${err instanceof Error ? err.message : String(err)}`);
    return 0;
  });
  await deps.temporal.workflowService.getSystemInfo({}).catch((err: unknown) => {
    problems.push(`temporal: ${err instanceof Error ? err.message : String(err)}`);
  });
  return {
    healthy: problems.length === 0,
    message: problems.length === 0 ? 'ok' : problems.join('; '),
    uptime_seconds: String(Math.floor((Date.now() - startedAt) / 1000)),
    active_tasks: activeTasks,
    memory_usage_percent: (process.memoryUsage().rss / totalmem()) * 100,
  };
}

export function createAgentService(deps: AgentDeps, admission: TenantAdmission): AgentService {
  const limits = submissionLimits(deps);
  const starting = { ...deps, admission };
  const open = new Set<AbortController>();

  const start = async (request: ExecuteTaskRequest__Output, principal: Principal, metadata: Metadata) => {
    const taskId = submittedTaskId(request.metadata?.task_id ?? '', idempotencyKeyIn(metadata), principal);
    const input = agentTaskInput(request, { taskId, principal }, limits);
    const { workflowId } = await startTaskWorkflow(starting, input, principal, requestFingerprint(request, principal.userId));
    return { taskId, workflowId, timeoutSeconds: request.config?.timeout_seconds ?? 0 };
  };

  const stream = async (call: ServerWritableStream<ExecuteTaskRequest__Output, TaskUpdate>) => {
    const principal = await authenticateCall(deps.auth, call.metadata);
    const { taskId, workflowId, timeoutSeconds } = await start(call.request, principal, call.metadata);
    const lifetime = streamLifetime(call, deps.auth, principal, open);
    // The stream itself ends with the task's final event.
    const timeout = cancelOnTimeout(deps.temporal, workflowId, timeoutSeconds);
    try {
      for await (const event of tailTaskEvents(deps, workflowId, 0, lifetime.signal)) {
        const update = agentUpdate(taskId, event);
        // The last update carries the answer (or what went wrong) rather than a lifecycle line.
        if (update.progress === 1) {
          const task = await findTask(deps.pool, taskId);
          update.message = task?.result || task?.errorMessage || update.message;
        }
        await send(call, update);
      }
      lifetime.throwIfKeyRevoked();
    } finally {
      lifetime.release();
      timeout.clear();
    }
  };

  const handlers: AgentServiceHandlers = {
    ExecuteTask: authorizedCall(deps.auth, async (request, principal, call) => {
      const { taskId, workflowId, timeoutSeconds } = await start(request, principal, call.metadata);
      const outcome = await awaitAgentResult(deps.temporal, workflowId, timeoutSeconds, abandonedSignal(call));
      return executionResponse(deps.pool, taskId, workflowId, outcome);
    }),

    StreamExecuteTask: serverStream(stream),

    GetCapabilities: authorized(deps.auth, async (_request, principal) => ({
      supported_tools: limits.toolNamesFor(principal.tenantId),
      supported_modes: ['EXECUTION_MODE_SIMPLE', 'EXECUTION_MODE_STANDARD'],
      max_memory_mb: String(deps.sandboxMemoryMb),
      max_concurrent_tasks: deps.taskDefaults.maxAgents,
      version: weftVersion,
    })),

    HealthCheck: authorized(deps.auth, async (_request, principal) => healthOf(deps, principal)),

    DiscoverTools: authorized(deps.auth, async (request, principal) => ({ tools: discoverTools(deps.tools, request, principal.tenantId) })),
    GetToolCapability: authorized(deps.auth, async (request, principal) => ({ tool: toolCapabilityOf(deps.tools, request.tool_id, principal.tenantId) })),
  };

  return {
    handlers,
    endAll: () => {
      for (const ending of open) ending.abort();
    },
  };
}
