import type { Queryable } from '../../db/transaction';
import { recordAgentStarted, recordRunningAgentOutcome } from '../task-agents';
import type { TaskStatus } from '../task-status';
import { agentFinishedEvent, agentStartedEvent } from './agent-events';
import { TaskAgent } from './task-ref';

// The one agent of a SIMPLE or STANDARD task runs on the task's own run, without a child run of
// its own; it still appears as an agent, as the seed's stream shows: AGENT_STARTED with its first
// model step, AGENT_COMPLETED or AGENT_FAILED with the task's end, and a row in agent_statuses.

/** Whether a model step is the task's single agent working on the task's own run. */
export const isMainAgentStep = (input: { agentId: string; runAgentId?: string }) => input.agentId === TaskAgent.Main && !input.runAgentId;

/** The main agent's start as a step records it: its row (on the task's run) and AGENT_STARTED, the first time. */
export const mainAgentStart = (task: { runId: string; workflowId: string }, at: Date) => ({
  agentId: TaskAgent.Main,
  runId: task.runId,
  started: agentStartedEvent(task, TaskAgent.Main, at),
});

/** In the transaction of a main-agent step: the agent's row and AGENT_STARTED, the first time. */
export async function recordMainAgentStep(tx: Queryable, task: { taskId: string; runId: string; workflowId: string }, at: Date): Promise<void> {
  const { agentId, runId, started } = mainAgentStart(task, at);
  await recordAgentStarted(tx, task.taskId, agentId, runId, at, started);
}

/** In the transaction of the task's end: the main agent, when still running, ends as the task did, with its event. */
export async function recordMainAgentEnd(
  tx: Queryable,
  task: { taskId: string; workflowId: string; runId: string },
  outcome: { status: TaskStatus; result: string; error: string; at: Date },
): Promise<void> {
  await recordRunningAgentOutcome(tx, task.taskId, TaskAgent.Main, outcome, agentFinishedEvent(task, TaskAgent.Main, outcome));
}
