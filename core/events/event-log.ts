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
  /** The event's place in the task's log; 0 for a live-only event, which is not in the log. */
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
 * Appends an event with the workflow's next sequence number, inside the caller's transaction, in one
 * round trip (migrations 004 and 028). The counter row stays locked until commit, so sequences are gap-free
 * and committed in order, and an event whose key is already in the log is not appended again.
 */
export async function appendTaskEvent(tx: Queryable, event: NewTaskEvent): Promise<number> {
  const append = appendCallOf(event, 1);
  const result = await tx.query<{ seq: string }>(`SELECT ${append.call} AS seq`, append.params);
  return Number(result.rows[0]!.seq);
}

/**
 * The append as a call another statement can make (with its parameters from `$firstParam` on):
 * a write and its event in one round trip.
 */
export function appendCallOf(event: NewTaskEvent, firstParam: number): { call: string; params: unknown[] } {
  const params = [
    event.workflowId,
    event.key,
    event.type,
    event.agentId ?? '',
    event.message ?? '',
    JSON.stringify(event.payload ?? {}),
    event.at,
    eventChannel,
  ];
  return { call: `weft_append_task_event(${params.map((_, i) => `$${firstParam + i}`).join(', ')})`, params };
}

/**
 * Appends events in the order given, each as appendTaskEvent does, in one statement that writes
 * each workflow's counter row once (migration 028): a task's end writes several, and a statement on
 * its own commits atomically, so a caller outside a transaction needs none.
 */
export async function appendTaskEvents(db: Queryable, events: NewTaskEvent[]): Promise<void> {
  if (events.length === 0) return;
  await db.query('SELECT weft_append_task_events($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::jsonb[], $7::timestamptz[], $8)', [
    events.map((event) => event.workflowId),
    events.map((event) => event.key),
    events.map((event) => event.type),
    events.map((event) => event.agentId ?? ''),
    events.map((event) => event.message ?? ''),
    events.map((event) => JSON.stringify(event.payload ?? {})),
    events.map((event) => event.at),
    eventChannel,
  ]);
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
  const rows = await db.query<EventRow>(`SELECT * FROM task_events WHERE workflow_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`, [workflowId, afterSeq, limit]);
  return rows.rows.map(fromRow);
}

/** The newest event of a task, if it has any. */
export async function lastTaskEvent(db: Queryable, workflowId: string): Promise<TaskEvent | undefined> {
  const rows = await db.query<EventRow>('SELECT * FROM task_events WHERE workflow_id = $1 ORDER BY seq DESC LIMIT 1', [workflowId]);
  return rows.rows[0] && fromRow(rows.rows[0]);
}

export const isLiveOnly = (event: TaskEvent) => event.seq === 0;

/** Notifies the task's readers of an event that is not stored: they get it only while connected. */
export async function publishLiveEvent(db: Queryable, event: Omit<NewTaskEvent, 'key' | 'payload'>): Promise<void> {
  await db.query('SELECT pg_notify($1, $2)', [eventChannel, liveEventNote(event)]);
}

/** The notification (on eventChannel) that delivers a live-only event: seq 0, never stored. */
export function liveEventNote(event: Omit<NewTaskEvent, 'key' | 'payload'>): string {
  const note = {
    workflow_id: event.workflowId,
    seq: 0,
    event_key: '',
    event_type: event.type,
    agent_id: event.agentId ?? '',
    message: event.message ?? '',
    payload: {},
    created_at: event.at,
  };
  return JSON.stringify(note);
}

/**
 * An event as an append notification carries it (migration 007) or a live-only one (seq 0), or
 * undefined when the notification carries only the event's place.
 */
export function eventFromNotification(payload: string): { workflowId: string; event?: TaskEvent } {
  const {
    seq,
    created_at: createdAt,
    ...note
  } = JSON.parse(payload) as Partial<Omit<EventRow, 'seq' | 'created_at'>> & {
    workflow_id: string;
    seq: number;
    created_at?: string;
  };
  if (note.event_type === undefined || createdAt === undefined) return { workflowId: note.workflow_id };
  return {
    workflowId: note.workflow_id,
    event: fromRow({ ...(note as Omit<EventRow, 'seq' | 'created_at'>), seq: String(seq), created_at: new Date(createdAt) }),
  };
}

function fromRow(row: EventRow): TaskEvent {
  return {
    workflowId: row.workflow_id,
    seq: Number(row.seq),
    key: row.event_key,
    type: row.event_type,
    agentId: row.agent_id,
    message: row.message,
    payload: row.payload,
    at: row.created_at,
  };
}
