import type { NewTaskEvent } from '../../events/event-log';
import { EventType } from '../../events/event-types';
import { TaskStatus } from '../task-status';
import { taskEvent } from './task-events';

// An agent's two events on its task's stream, the same for a plan's agents and a task's single one.

export const agentStartedEvent = (workflowId: string, agentId: string, at: Date): NewTaskEvent =>
  taskEvent(workflowId, `agent/${agentId}/started`, EventType.AgentStarted, at, { agentId, message: 'agent started' });

/** AGENT_COMPLETED with the start of its result, or AGENT_FAILED with what went wrong. */
export function agentFinishedEvent(workflowId: string, agentId: string, outcome: { status: TaskStatus; result: string; error: string; at: Date }): NewTaskEvent {
  const completed = outcome.status === TaskStatus.Completed;
  return taskEvent(workflowId, `agent/${agentId}/finished`, completed ? EventType.AgentCompleted : EventType.AgentFailed, outcome.at, {
    agentId,
    message: completed ? outcome.result.slice(0, 500) : outcome.error || outcome.status.toLowerCase(),
  });
}
