import { appendTaskEvent } from '../../events/event-log';
import { commitWith } from '../../db/transaction';
import { recordAgentOutcome, recordAgentStarted } from '../task-agents';
import { recordTaskProgress, lockedTaskStatus } from '../task-index';
import { TaskStatus } from '../task-status';
import { endRun, runStatusOf } from './run-ending';
import { childLinkRecord, runStartOf } from './run-records';
import { agentFinishedEvent, agentStartedEvent } from './agent-events';
import { agentRunAgentId, taskRunIdOr, taskRunOf } from './task-ref';
import type { TaskWriteDeps } from './task-write-deps';

export interface AgentRunInput {
  taskId: string;
  /** The task's workflow: the stream the agent's events go to, and its first run. */
  workflowId: string;
  /** The task's run the agent's run is a child of; the workflow's first run when absent (histories from before a reset could give the task another). */
  taskRunId?: string;
  sessionId: string;
  /** The plan's agent. */
  agentId: string;
  /** The agent's own run: its child workflow's id (agentRunIdOf). */
  runId: string;
  atMs: number;
}

export interface FinishAgentInput extends AgentRunInput {
  status: typeof TaskStatus.Completed | typeof TaskStatus.Failed | typeof TaskStatus.Cancelled;
  result: string;
  error: string;
  cancellationReason?: string;
}

const agentRunOf = (input: AgentRunInput) => ({ runId: input.runId, runAgentId: agentRunAgentId(input.agentId), sessionId: input.sessionId });

/** A COMPLEX task's agent runs: children of the task's own run, each start and end one transaction. */
export function agentRuns({ store }: TaskWriteDeps) {
  return {
    /**
     * Starts the agent's child run under the task's run (child_run_linked + run_started), indexes
     * the agent and emits AGENT_STARTED. An ended session records the run cancelled instead.
     */
    async startAgent(input: AgentRunInput): Promise<{ proceed: boolean; runAgentId: string }> {
      const at = new Date(input.atMs);
      const parent = { ...taskRunOf(taskRunIdOr(input.taskRunId, input.workflowId)), sessionId: input.sessionId };
      const child = agentRunOf(input);
      const labels = { task_id: input.taskId, agent_id: input.agentId };
      const command = {
        ...runStartOf(child, at, labels, parent.runId),
        parentRunId: parent.runId,
        link: childLinkRecord(parent, at, child, `agent/${input.agentId}`),
      };
      const start = input.sessionId ? store.startChildRun : store.startOneShotChildRun;
      const result = await start(command, (tx) =>
        commitWith(tx, recordAgentStarted(tx, input.taskId, input.agentId, input.runId, at, agentStartedEvent(input, input.agentId, at))),
      );
      return { proceed: result.decision === 'proceed', runAgentId: child.runAgentId };
    },

    /** Ends the agent's run with its outcome, updates the task's progress and emits AGENT_COMPLETED or AGENT_FAILED. */
    async finishAgent(input: FinishAgentInput): Promise<void> {
      const at = new Date(input.atMs);
      const ending = {
        status: runStatusOf[input.status],
        at,
        ...(input.error ? { error: input.error } : {}),
        ...(input.cancellationReason ? { cancellationReason: input.cancellationReason } : {}),
      };
      await endRun(store, agentRunOf(input), ending, async (tx) => {
        await recordAgentOutcome(tx, input.taskId, input.agentId, { status: input.status, result: input.result, error: input.error, at });
        // An agent that ends after its task (cancelled with it) adds nothing to the task's finished
        // log: streams end at the final event, and nothing may follow it.
        const taskStatus = await lockedTaskStatus(tx, input.taskId);
        if (taskStatus !== TaskStatus.Running && taskStatus !== TaskStatus.Queued) return;
        await recordTaskProgress(tx, input.taskId);
        await appendTaskEvent(tx, agentFinishedEvent(input, input.agentId, { status: input.status, result: input.result, error: input.error, at }));
      });
    },
  };
}
