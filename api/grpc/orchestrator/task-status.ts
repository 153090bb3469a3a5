import type { Pool } from 'pg';
import { listTaskAgents, type AgentRecord } from '../../../core/tasks/task-agents';
import type { TaskRecord } from '../../../core/tasks/task-index';
import type { AgentTaskStatus } from '../../../protos/generated/shannon/orchestrator/AgentTaskStatus';
import type { GetTaskStatusResponse } from '../../../protos/generated/shannon/orchestrator/GetTaskStatusResponse';
import type { TaskView } from '../../../workflows/messages';
import type { RunningTasks } from '../../tasks/running-tasks';

/** An agent's status from the store, with the running workflow's fresher view where it has one. */
function agentStatus(taskId: string, agent: AgentRecord, view: TaskView | undefined): AgentTaskStatus {
  const live = view?.agents.find((a) => a.agentId === agent.agentId);
  return {
    agent_id: agent.agentId,
    task_id: taskId,
    status: `TASK_STATUS_${live && live.status !== 'PENDING' ? live.status : agent.status}`,
    result: agent.result || live?.result || '',
    token_usage: {
      prompt_tokens: agent.usage.promptTokens,
      completion_tokens: agent.usage.completionTokens,
      total_tokens: agent.usage.totalTokens,
      cost_usd: agent.usage.costUsd,
    },
  };
}

/** GetTaskStatus from the store, with the workflow's live view while the task runs. */
export async function taskStatusResponse(
  deps: { running: RunningTasks; pool: Pool },
  task: TaskRecord,
  includeDetails: boolean,
): Promise<GetTaskStatusResponse> {
  const running = task.status === 'RUNNING' || task.status === 'QUEUED';
  const view = running ? await deps.running.view(task.workflowId) : undefined;
  const finishedAt = task.completedAt ?? new Date();
  const stored = await listTaskAgents(deps.pool, task.taskId);
  const agentStatuses = includeDetails ? stored.map((agent) => agentStatus(task.taskId, agent, view)) : [];
  return {
    task_id: task.taskId,
    status: `TASK_STATUS_${task.status}`,
    progress: running ? Math.max(task.progress, view?.progress ?? 0) : 1,
    result: task.result,
    error_message: task.errorMessage,
    metrics: {
      latency_ms: String(finishedAt.getTime() - task.createdAt.getTime()),
      token_usage: {
        prompt_tokens: task.usage.promptTokens,
        completion_tokens: task.usage.completionTokens,
        total_tokens: running && view ? view.tokens : task.usage.totalTokens,
        cost_usd: running && view ? view.costUsd : task.usage.costUsd,
        model: task.usage.model,
        estimated: task.usage.estimated ?? false,
      },
      // A plan's agents, or the one agent of a task that ran one.
      agents_used: stored.length > 0 ? stored.length : task.mode !== 'SIMPLE' && task.usage.totalTokens > 0 ? 1 : 0,
      mode: `EXECUTION_MODE_${view?.mode || task.mode}`,
      // Answered whole from an earlier task's answer, or a step answered from the response cache.
      cache_hit: task.usage.model === 'cache' || task.cacheHit,
    },
    agent_statuses: agentStatuses,
  };
}

/** How a task the store has not indexed yet looks, by the Temporal status of its workflow. */
const unindexedStatusOf: Record<string, GetTaskStatusResponse['status']> = {
  RUNNING: 'TASK_STATUS_QUEUED',
  TERMINATED: 'TASK_STATUS_CANCELLED',
  CANCELLED: 'TASK_STATUS_CANCELLED',
  TIMED_OUT: 'TASK_STATUS_TIMEOUT',
  FAILED: 'TASK_STATUS_FAILED',
};

/**
 * A task whose workflow has not recorded its start yet: QUEUED while the workflow runs, or how
 * Temporal ended it (terminated or timed out before any worker took it).
 */
export function unindexedTaskStatus(taskId: string, workflowStatus: string): GetTaskStatusResponse {
  const mapped = unindexedStatusOf[workflowStatus] ?? 'TASK_STATUS_QUEUED';
  const ended = mapped !== 'TASK_STATUS_QUEUED';
  return {
    task_id: taskId,
    status: mapped,
    progress: ended ? 1 : 0,
    agent_statuses: [],
    ...(ended ? { error_message: `ended in Temporal (${workflowStatus.toLowerCase()}) before it started` } : {}),
  };
}
