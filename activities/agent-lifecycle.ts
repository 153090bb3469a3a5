import { appendTaskEvent } from '../core/events/event-log';
import { EventType } from '../core/events/event-types';
import { recordAgentOutcome, recordAgentStarted } from '../core/tasks/task-agents';
import { recordTaskProgress } from '../core/tasks/task-index';
import { TaskStatus } from '../core/tasks/task-status';
import type { ActivityDeps } from './deps';
import { failPermanentErrorsFast } from './failures';
import { taskEvent } from './task-events';
import { endRun } from './end-run';
import { TASK_AGENT_ID, agentRunAgentId, childLinkRecord, ownerOf, runStartedRecord, sessionEndedRecord } from './task-records';

export interface AgentRunInput {
  taskId: string;
  /** The task workflow: the parent run, and the stream the agent's events go to. */
  workflowId: string;
  sessionId: string;
  agentId: string;
  /** The agent's own run: its child workflow's id. */
  runId: string;
  atMs: number;
}

export interface FinishAgentInput extends AgentRunInput {
  status: typeof TaskStatus.Completed | typeof TaskStatus.Failed | typeof TaskStatus.Cancelled;
  result: string;
  error: string;
  cancellationReason?: string;
}

const terminalStatusOf = { COMPLETED: 'completed', FAILED: 'failed', CANCELLED: 'canceled' } as const;

export function createAgentLifecycleActivities({ store }: ActivityDeps) {
  return {
    /** Starts the agent's child run under the task run (link + run_started), indexes it and emits AGENT_STARTED. */
    async startAgent(input: AgentRunInput): Promise<{ proceed: boolean; runAgentId: string }> {
      return failPermanentErrorsFast(async () => {
        const at = new Date(input.atMs);
        const parent = ownerOf(input.workflowId, input.sessionId, TASK_AGENT_ID);
        const child = ownerOf(input.runId, input.sessionId, agentRunAgentId(input.agentId));
        const labels = { task_id: input.taskId, agent_id: input.agentId };
        const command = {
          ...child,
          parentRunId: input.workflowId,
          labels,
          startedAt: at,
          started: runStartedRecord(child, at, labels, input.workflowId),
          canceled: sessionEndedRecord(child, at),
          link: childLinkRecord(parent, at, child, `agent/${input.agentId}`),
        };
        const start = input.sessionId ? store.startChildRun : store.startOneShotChildRun;
        const result = await start(command, async (tx) => {
          await recordAgentStarted(tx, input.taskId, input.agentId, input.runId, at);
          await appendTaskEvent(
            tx,
            taskEvent(input.workflowId, `agent/${input.agentId}/started`, EventType.AgentStarted, at, { agentId: input.agentId, message: 'agent started' }),
          );
        });
        return { proceed: result.decision === 'proceed', runAgentId: child.agentId };
      });
    },

    /** Ends the agent's run with its outcome, updates the task's progress and emits AGENT_COMPLETED or AGENT_FAILED. */
    async finishAgent(input: FinishAgentInput): Promise<void> {
      return failPermanentErrorsFast(async () => {
        const at = new Date(input.atMs);
        const child = ownerOf(input.runId, input.sessionId, agentRunAgentId(input.agentId));
        const ending = {
          status: terminalStatusOf[input.status],
          at,
          ...(input.error ? { error: input.error } : {}),
          ...(input.cancellationReason ? { cancellationReason: input.cancellationReason } : {}),
        };
        await endRun(store, child, ending, async (tx) => {
          await recordAgentOutcome(tx, input.taskId, input.agentId, { status: input.status, result: input.result, error: input.error, at });
          await recordTaskProgress(tx, input.taskId);
          const completed = input.status === TaskStatus.Completed;
          await appendTaskEvent(
            tx,
            taskEvent(input.workflowId, `agent/${input.agentId}/finished`, completed ? EventType.AgentCompleted : EventType.AgentFailed, at, {
              agentId: input.agentId,
              message: completed ? input.result.slice(0, 500) : input.error || input.status.toLowerCase(),
            }),
          );
        });
      });
    },
  };
}
