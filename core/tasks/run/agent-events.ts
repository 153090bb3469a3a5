import type { NewTaskEvent } from '../../events/event-log';
import { EventType } from '../../events/event-types';
import { TaskStatus } from '../task-status';
import { taskEvent } from './task-events';
import { runEventKey } from './task-ref';

// An agent's two events on its task's stream, the same for a plan's agents and a task's single one.
// `on` names the stream (the task's workflow) and the run whose agent it is (which keys the event).

type AgentStream = { workflowId: string; runId: string };

export const agentStartedEvent = (on: AgentStream, agentId: string, at: Date): NewTaskEvent =>
  taskEvent(on.workflowId, runEventKey(on.runId, `agent/${agentId}/started`), EventType.AgentStarted, at, { agentId, message: 'agent started' });

/** AGENT_COMPLETED with the start of its result, or AGENT_FAILED with what went wrong. */
export function agentFinishedEvent(on: AgentStream, agentId: string, outcome: { status: TaskStatus; result: string; error: string; at: Date }): NewTaskEvent {
  const completed = outcome.status === TaskStatus.Completed;
  return taskEvent(
    on.workflowId,
    runEventKey(on.runId, `agent/${agentId}/finished`),
    completed ? EventType.AgentCompleted : EventType.AgentFailed,
    outcome.at,
    {
      agentId,
      message: completed ? outcome.result.slice(0, 500) : outcome.error || outcome.status.toLowerCase(),
    },
  );
}
