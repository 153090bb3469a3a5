import type { Queryable } from '../db/transaction';
import type { EventType } from './event-types';

export interface NewTaskEvent {
  workflowId: string;
  /** Unique per workflow: a retried append with the same key returns the original event. */
  key: string;
  type: EventType;
  agentId?: string;
  message?: string;
  payload?: Record<string, unknown>;
  at: Date;
}

export interface TaskEvent {
  workflowId: string;
  seq: number;
  key: string;
  type: EventType;
  agentId: string;
  message: string;
  payload: Record<string, unknown>;
  at: Date;
}

export const eventChannel = 'weft_task_events';

/**
 * Appends an event with the workflow's next sequence number, inside the caller's transaction. The
 * counter row stays locked until commit, so sequences are gap-free and committed in order, and an
 * event whose key is already in the log is not appended again.
 */
export async function appendTaskEvent(tx: Queryable, event: NewTaskEvent): Promise<number> {
  // Lock the workflow's counter first: appends of one workflow (and retries of one event) serialize here.
  const counter = await tx.query<{ last_seq: string }>(
    `INSERT INTO task_event_counters (workflow_id, last_seq) VALUES ($1, 0)
     ON CONFLICT (workflow_id) DO UPDATE SET last_seq = task_event_counters.last_seq
     RETURNING last_seq`,
    [event.workflowId],
  );
  const existing = await tx.query<{ seq: string }>('SELECT seq FROM task_events WHERE workflow_id = $1 AND event_key = $2', [
    event.workflowId,
    event.key,
  ]);
  if (existing.rows[0]) return Number(existing.rows[0].seq);
  const seq = Number(counter.rows[0]!.last_seq) + 1;
  await tx.query('UPDATE task_event_counters SET last_seq = $2 WHERE workflow_id = $1', [event.workflowId, seq]);
  await tx.query(
    `INSERT INTO task_events (workflow_id, seq, event_key, event_type, agent_id, message, payload, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [event.workflowId, seq, event.key, event.type, event.agentId ?? '', event.message ?? '', JSON.stringify(event.payload ?? {}), event.at],
  );
  // Live readers are woken at commit; the log itself is the source of truth.
  await tx.query('SELECT pg_notify($1, $2)', [eventChannel, `${event.workflowId}:${seq}`]);
  return seq;
}

interface EventRow {
  workflow_id: string;
  seq: string;
  event_key: string;
  event_type: EventType;
  agent_id: string;
  message: string;
  payload: Record<string, unknown>;
  created_at: Date;
}

/** Events after `afterSeq`, in order. */
export async function listTaskEvents(db: Queryable, workflowId: string, afterSeq = 0, limit = 1000): Promise<TaskEvent[]> {
  const rows = await db.query<EventRow>(
    `SELECT * FROM task_events WHERE workflow_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
    [workflowId, afterSeq, limit],
  );
  return rows.rows.map((row) => ({
    workflowId: row.workflow_id,
    seq: Number(row.seq),
    key: row.event_key,
    type: row.event_type,
    agentId: row.agent_id,
    message: row.message,
    payload: row.payload,
    at: row.created_at,
  }));
}
