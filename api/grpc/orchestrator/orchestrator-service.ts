import type { TaskSettings } from '../../../core/orchestration/task-settings';
import type { TemplateCatalog } from '../../../core/templates/template-catalog';
import type { ToolRegistry } from '../../../core/tools/registry';
import type { CancelTaskRequest__Output } from '../../../protos/generated/shannon/orchestrator/CancelTaskRequest';
import type { CancelTaskResponse } from '../../../protos/generated/shannon/orchestrator/CancelTaskResponse';
import type { GetTaskStatusRequest__Output } from '../../../protos/generated/shannon/orchestrator/GetTaskStatusRequest';
import type { GetTaskStatusResponse } from '../../../protos/generated/shannon/orchestrator/GetTaskStatusResponse';
import type { OrchestratorServiceHandlers } from '../../../protos/generated/shannon/orchestrator/OrchestratorService';
import type { SubmitTaskRequest__Output } from '../../../protos/generated/shannon/orchestrator/SubmitTaskRequest';
import type { SubmitTaskResponse } from '../../../protos/generated/shannon/orchestrator/SubmitTaskResponse';
import { runningTasks } from '../../tasks/running-tasks';
import { approveTask, pendingApprovals } from './approvals';
import { steeringHandlers } from './steering-handlers';
import { scheduleHandlers } from './schedule-handlers';
import { reviewHandlers } from './review-handlers';
import { createScheduleService } from '../../tasks/schedules';
import type { Authenticator } from '../../tasks/auth';
import { preconditionFailed } from '../../tasks/task-errors';
import { listTaskSummaries, sessionContext } from './task-listing';
import { ownTaskOf, type TaskOwnershipDeps } from '../../tasks/task-ownership';
import { startTaskWorkflow, submittedTaskId } from '../../tasks/task-start';
import { requestFingerprint } from '../../tasks/request-fingerprint';
import { decompositionOf, routedDecomposition } from './submitted-decomposition';
import type { EventFeed } from '../../../core/events/event-feed';
import type { TenantAdmission, TenantQuotas } from '../../tasks/tenant-admission';
import { taskStatusResponse, unindexedTaskStatus } from './task-status';
import { submissionLimits, taskInputFrom } from '../../tasks/task-submission';
import { taskSubmissionOf } from '../task-submission-of';
import { idempotencyKeyIn } from '../callers';
import { authorized, authorizedCall } from '../unary';
import type { SkillCatalog } from '../../../core/skills/skill-catalog';
import type { AgentCatalog } from '../../../core/agents/agent-catalog';

export interface OrchestratorDeps extends TaskOwnershipDeps {
  taskQueue: string;
  maxQueryBytes: number;
  taskDefaults: TaskSettings;
  tools: ToolRegistry;
  templates: TemplateCatalog;
  /** Skills a task may name (context.skill). */
  skills: SkillCatalog;
  /** Named agents (Shannon's /api/v1/agents). */
  agents: AgentCatalog;
  auth: Authenticator;
  /** Each tenant's share of task submissions and running tasks; unlimited when absent. */
  tenantQuotas?: TenantQuotas;
  /** Task events: SubmitTask with auto_decompose answers once routing has decided. */
  events: EventFeed;
  /** How long it waits for that (WEFT_SUBMIT_ROUTING_WAIT_MS; 0: not at all). */
  routingWaitMs: number;
}

/** `admission` is the API process's one gate of tenant shares, which AgentService shares. */
export function createOrchestratorService(deps: OrchestratorDeps, admission: TenantAdmission): OrchestratorServiceHandlers {
  const limits = submissionLimits(deps);
  const starting = { ...deps, admission };
  const running = runningTasks(deps.temporal);
  return {
    SubmitTask: authorizedCall(deps.auth, async (request: SubmitTaskRequest__Output, principal, call): Promise<SubmitTaskResponse> => {
      const taskId = submittedTaskId(request.metadata?.task_id ?? '', idempotencyKeyIn(call.metadata), principal);
      const input = taskInputFrom(taskSubmissionOf(request), { taskId, principal }, limits);
      const { workflowId, alreadyStarted } = await startTaskWorkflow(starting, input, principal, requestFingerprint(request, principal.userId));
      const message = alreadyStarted ? 'task already submitted; returning the existing workflow' : 'task submitted';
      const decomposition = input.manualPlan
        ? decompositionOf('COMPLEX', 0, input.manualPlan)
        : input.autoDecompose
          ? await routedDecomposition(deps, workflowId, deps.routingWaitMs)
          : decompositionOf('STANDARD', 0);
      return { workflow_id: workflowId, task_id: taskId, status: 'STATUS_CODE_OK', decomposition, message };
    }),

    GetTaskStatus: authorized(deps.auth, async (request: GetTaskStatusRequest__Output, principal): Promise<GetTaskStatusResponse> => {
      const task = await ownTaskOf(deps, request.task_id, principal);
      if (task.record) return taskStatusResponse({ running, pool: deps.pool }, task.record, request.include_details);
      return unindexedTaskStatus(task.taskId, task.workflowStatus ?? 'RUNNING');
    }),

    CancelTask: authorized(deps.auth, async (request: CancelTaskRequest__Output, principal): Promise<CancelTaskResponse> => {
      const task = await ownTaskOf(deps, request.task_id, principal);
      if (task.record && task.record.status !== 'RUNNING' && task.record.status !== 'QUEUED') {
        throw preconditionFailed(`task ${request.task_id} has already finished (${task.record.status})`);
      }
      const asked = await running.cancel(task.workflowId, request.reason || 'cancelled by user');
      if (!asked) throw preconditionFailed(`task ${request.task_id} has already finished`);
      return { success: true, message: 'cancellation requested' };
    }),

    ListTasks: authorized(deps.auth, (request, principal) => listTaskSummaries(deps.pool, request, principal)),
    GetSessionContext: authorized(deps.auth, (request, principal) => sessionContext(deps.pool, request, principal)),
    ListTemplates: authorized(deps.auth, async () => ({
      templates: deps.templates.list().map((t) => ({ name: t.name, version: t.version, key: t.key, content_hash: t.contentHash })),
    })),
    ApproveTask: authorized(deps.auth, (request, principal) => approveTask(deps, request, principal)),
    GetPendingApprovals: authorized(deps.auth, (request, principal) => pendingApprovals(deps, request, principal.tenantId)),
    ...steeringHandlers(deps),
    ...reviewHandlers(deps),
    ...scheduleHandlers({ auth: deps.auth, schedules: createScheduleService({ ...deps, limits }) }),
  };
}
