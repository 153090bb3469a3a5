import type { Queryable } from '../../db/transaction';
import { appendTaskEvent, type NewTaskEvent } from '../../events/event-log';
import type { EventType } from '../../events/event-types';
import { findTaskByWorkflow, lockedTaskStatus } from '../task-index';
import { TaskStatus } from '../task-status';

/** An event of a task's stream, keyed under its workflow so a retried write appends it once. */
export function taskEvent(
  workflowId: string,
  key: string,
  type: EventType,
  at: Date,
  details: { message?: string; agentId?: string; payload?: Record<string, unknown> } = {},
): NewTaskEvent {
  return { workflowId, key: `${workflowId}/${key}`, type, at, ...details };
}

/**
 * Appends an event about a task only while the task runs: nothing may follow its final event. The
 * task's row is locked, so its end cannot slip in between. False when the task has ended.
 */
export async function appendWhileTaskRuns(tx: Queryable, event: NewTaskEvent): Promise<boolean> {
  const task = await findTaskByWorkflow(tx, event.workflowId);
  const status = task && (await lockedTaskStatus(tx, task.taskId));
  if (status && status !== TaskStatus.Running && status !== TaskStatus.Queued) return false;
  await appendTaskEvent(tx, event);
  return true;
}
