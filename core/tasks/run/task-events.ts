import type { Pool } from 'pg';
import { withTransaction } from '../../db/transaction';
import { appendTaskEvent, type NewTaskEvent } from '../../events/event-log';
import type { EventType } from '../../events/event-types';

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

/** For events that describe no store write of their own. */
export function appendEvents(pool: Pool, events: NewTaskEvent[]): Promise<void> {
  return withTransaction(pool, async (tx) => {
    for (const event of events) await appendTaskEvent(tx, event);
  });
}
