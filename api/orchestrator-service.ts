import { status as GrpcStatus } from '@grpc/grpc-js';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { Pool } from 'pg';
import type { TaskSettings } from '../core/orchestration/task-settings';
import type { ToolRegistry } from '../core/tools/registry';
import type { CancelTaskRequest__Output } from '../protos/generated/shannon/orchestrator/CancelTaskRequest';
import type { CancelTaskResponse } from '../protos/generated/shannon/orchestrator/CancelTaskResponse';
import type { GetTaskStatusRequest__Output } from '../protos/generated/shannon/orchestrator/GetTaskStatusRequest';
import type { GetTaskStatusResponse } from '../protos/generated/shannon/orchestrator/GetTaskStatusResponse';
import type { OrchestratorServiceHandlers } from '../protos/generated/shannon/orchestrator/OrchestratorService';
import type { SubmitTaskRequest__Output } from '../protos/generated/shannon/orchestrator/SubmitTaskRequest';
import type { SubmitTaskResponse } from '../protos/generated/shannon/orchestrator/SubmitTaskResponse';
import { cancelTaskSignal } from '../workflows/messages';
import { executionModeKey, sessionIdKey, taskStatusKey, tenantIdKey, userIdKey } from '../workflows/search-attributes';
import type { taskWorkflow } from '../workflows/task-workflow';
import { approveTask, pendingApprovals } from './approvals';
import type { Authenticator } from './auth';
import { ApiError, failedPrecondition } from './grpc-errors';
import { taskIdFor, workflowIdFor } from './task-ids';
import { listTaskSummaries, sessionContext } from './task-listing';
import { ownTaskOf, workflowTenant } from './task-ownership';
import { taskStatusResponse } from './task-status';
import { taskInputFrom } from './task-submission';
import { authorized } from './unary';

export interface OrchestratorDeps {
  temporal: Client;
  pool: Pool;
  taskQueue: string;
  maxQueryBytes: number;
  taskDefaults: TaskSettings;
  tools: ToolRegistry;
  auth: Authenticator;
}

export function createOrchestratorService(deps: OrchestratorDeps): Partial<OrchestratorServiceHandlers> {
  const limits = { maxQueryBytes: deps.maxQueryBytes, taskDefaults: deps.taskDefaults, toolNames: deps.tools.list().map((t) => t.name) };
  return {
    SubmitTask: authorized(deps.auth, async (request: SubmitTaskRequest__Output, principal): Promise<SubmitTaskResponse> => {
      const taskId = taskIdFor(request.metadata?.task_id ?? '');
      const input = taskInputFrom(request, { taskId, principal }, limits);
      const workflowId = workflowIdFor(taskId);
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
            { key: executionModeKey, value: input.manualPlan ? 'COMPLEX' : input.autoDecompose ? 'ROUTING' : 'STANDARD' },
            { key: userIdKey, value: input.userId },
            { key: sessionIdKey, value: input.sessionId },
            { key: tenantIdKey, value: input.tenantId },
          ],
        });
      } catch (err) {
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
        if ((await workflowTenant(deps.temporal, workflowId)) !== principal.tenantId) {
          throw new ApiError(GrpcStatus.ALREADY_EXISTS, `task id ${taskId} is already taken; choose another`);
        }
        message = 'task already submitted; returning the existing workflow';
      }
      const plan = input.manualPlan;
      return {
        workflow_id: workflowId,
        task_id: taskId,
        status: 'STATUS_CODE_OK',
        decomposition: {
          mode: plan ? 'EXECUTION_MODE_COMPLEX' : input.autoDecompose ? 'EXECUTION_MODE_UNSPECIFIED' : 'EXECUTION_MODE_STANDARD',
          agent_tasks: (plan?.agents ?? []).map((a) => ({
            agent_id: a.id,
            description: a.description,
            dependencies: a.dependencies,
            required_tools: a.tools,
            model_tier: `MODEL_TIER_${a.tier}`,
          })),
        },
        message,
      };
    }),

    GetTaskStatus: authorized(deps.auth, async (request: GetTaskStatusRequest__Output, principal): Promise<GetTaskStatusResponse> => {
      const task = await ownTaskOf(deps, request.task_id, principal);
      if (task) return taskStatusResponse(deps, task, request.include_details);
      return { task_id: request.task_id, status: 'TASK_STATUS_QUEUED', progress: 0, agent_statuses: [] };
    }),

    CancelTask: authorized(deps.auth, async (request: CancelTaskRequest__Output, principal): Promise<CancelTaskResponse> => {
      const task = await ownTaskOf(deps, request.task_id, principal);
      const workflowId = workflowIdFor(request.task_id);
      if (task && task.status !== 'RUNNING' && task.status !== 'QUEUED') {
        throw failedPrecondition(`task ${request.task_id} has already finished (${task.status})`);
      }
      await deps.temporal.workflow.getHandle(workflowId).signal(cancelTaskSignal, { reason: request.reason || 'cancelled by user' });
      return { success: true, message: 'cancellation requested' };
    }),

    ListTasks: authorized(deps.auth, (request, principal) => listTaskSummaries(deps.pool, request, principal)),
    GetSessionContext: authorized(deps.auth, (request, principal) => sessionContext(deps.pool, request, principal)),
    ApproveTask: authorized(deps.auth, (request, principal) => approveTask(deps, request, principal)),
    GetPendingApprovals: authorized(deps.auth, (request, principal) => pendingApprovals(deps, request, principal.tenantId)),
  };
}
