import { LRUCache } from 'lru-cache';
import { appendTaskEvent } from '../../events/event-log';
import { EventType } from '../../events/event-types';
import type { Pool } from 'pg';
import { RunNotFoundError, type RuntimeStore, type StoredRecord } from '../../store';
import { readRunLog } from '../../transcript';
import { withTransaction, type Queryable } from '../../db/transaction';
import { findTask, moveTaskToRun, recordTaskOutcome } from '../task-index';
import { TaskStatus } from '../task-status';
import { copiedRecord } from './forked-steps';
import { endRun } from './run-ending';
import { runStartOf, type RecordOwner } from './run-records';
import { taskEvent } from './task-events';
import { TASK_RUN_AGENT_ID, runEventKey, taskRunOf, type TaskRef } from './task-ref';
import type { TaskWriteDeps } from './task-write-deps';

// A Temporal reset (the Web UI's Reset, `temporal workflow reset`) runs a task's workflow again
// from a point of its history, in a new Temporal run. That run writes a new store run of the task
// (resetRunIdOf), linked to the run it continues: the steps before the reset point keep what the
// earlier run recorded, the steps after it run fresh, and both runs' records are kept. Workflow code
// cannot tell where the reset point is (its history up to there is replayed, not run), so every
// activity of a reset run carries the handover in its run context (run-context.ts), and the first
// one to run makes the new run the task's.

/** The reason a reset ends the store run it replaces. */
export const RESET_REASON = 'reset_in_temporal';

/** A reset run's claim on its task, as each of its activities carries it in its run context. */
export interface TaskRunHandover extends TaskRef {
  workflowId: string;
  /** The reset's store run: the task's run from the first of its activities on. */
  runId: string;
  /** The Temporal run the reset made. */
  temporalRunId: string;
  /**
   * What the reset's history had done when the activity was scheduled: the first `belowStep` model
   * steps of the task's own agent, and the tool calls of the step after them that ran. The new run
   * starts with the earlier run's records of these, and of nothing after them.
   */
  belowStep: number;
  toolCalls: string[];
  /** Workflow time when the activity was scheduled: the new run's start. */
  atMs: number;
}

type HandoverDeps = Pick<TaskWriteDeps, 'pool' | 'store'>;

/** A handover of a reset run that a later reset has replaced already: it can never apply. */
export class SupersededHandoverError extends Error {
  readonly permanent = true;
  constructor(runId: string, byRunId: string) {
    super(`reset run ${runId} was replaced by a later reset (run ${byRunId}) before it could take the task over`);
    this.name = 'SupersededHandoverError';
  }
}

const keptStep = /^step-(\d+)\/(tool-results|compaction|reply)$/;
const keptToolCall = /^tool\/([^/]+?)(\.again)?(\/started|\/resolution)?$/;

/** The earlier run's records that the reset's history had already done: its transcript up to there and those tool calls. */
function keptRecords(log: StoredRecord[], fromRunId: string, handover: TaskRunHandover): StoredRecord[] {
  return log.filter((record) => {
    const name = record.key.slice(fromRunId.length + 1);
    if (name === 'seed') return handover.belowStep > 0;
    const step = keptStep.exec(name);
    if (step) return Number(step[1]) < handover.belowStep;
    const call = keptToolCall.exec(name);
    return call !== null && handover.toolCalls.includes(call[1]!);
  });
}

/**
 * Holds the task's handover lock (a Postgres advisory lock) while `work` runs: the activities of
 * one reset run may hand over at the same moment, and only one may write the handover.
 */
async function holdingHandoverLock<T>(pool: Pool, taskId: string, work: () => Promise<T>): Promise<T> {
  const client = await pool.connect();
  const key = `weft reset handover ${taskId}`;
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [key]);
    try {
      return await work();
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [key]);
    }
  } finally {
    client.release();
  }
}

const isStarted = (store: RuntimeStore, runId: string) =>
  store.loadRun(runId).then(
    () => true,
    (err: unknown) => {
      if (err instanceof RunNotFoundError) return false;
      throw err;
    },
  );

/**
 * Makes the reset's store run the task's: the earlier run ends (canceled, reset_in_temporal) if it
 * still ran, the new run starts labelled with where it came from, the earlier run's records of the
 * steps before the reset point are copied into it (nothing is asked or charged again), and the
 * task's row moves to it (running again if it had ended) with a STATUS_UPDATE on the task's stream.
 * Under the task's lock; the row moves last, and a handover an earlier attempt left half done is
 * finished with what it wrote (its start, its copies).
 */
async function handOver({ store, pool }: HandoverDeps, handover: TaskRunHandover): Promise<void> {
  // Read again under the lock: another worker may have handed over meanwhile.
  const task = await findTask(pool, handover.taskId);
  if (!task) throw new Error(`task ${handover.taskId} has no task index row: a reset cannot hand it over`);
  if (task.runId === handover.runId) return;
  const fromRunId = task.runId;
  const at = new Date(handover.atMs);
  const owner: RecordOwner = { runId: handover.runId, runAgentId: TASK_RUN_AGENT_ID, sessionId: handover.sessionId };
  const from = await store.loadRun(fromRunId);
  // A straggling activity of an earlier reset's run must not take the task back from a later one.
  if (from.labels.reset_from_run && from.startedAt.getTime() > handover.atMs) throw new SupersededHandoverError(handover.runId, fromRunId);
  if (from.status === 'running' || from.status === 'suspended') {
    await endRun(store, { ...taskRunOf(fromRunId), sessionId: handover.sessionId }, { status: 'canceled', cancellationReason: RESET_REASON, at });
  }
  if (!(await isStarted(store, owner.runId))) {
    const labels = {
      task_id: handover.taskId,
      tenant_id: handover.tenantId,
      user_id: handover.userId,
      ...(handover.submittedBy ? { submitted_by: handover.submittedBy } : {}),
      reset_from_run: fromRunId,
      reset_temporal_run: handover.temporalRunId,
      reset_at_step: String(handover.belowStep + 1),
    };
    const start = handover.sessionId ? store.startRootRun : store.startOneShotRun;
    await start(runStartOf(owner, at, labels));
  }
  // In a session that has ended, the new run was recorded stopped (as a start would be): the task ends cancelled with it.
  const stopped = (await store.loadRun(owner.runId)).status !== 'running';
  const copied = new Set((await readRunLog(store, owner.runId)).map((record) => record.key));
  const kept = stopped ? [] : keptRecords(await readRunLog(store, fromRunId), fromRunId, handover).map((record) => copiedRecord(record, fromRunId, owner, at));
  const missing = kept.filter((record) => !copied.has(record.key));
  if (missing.length > 0) await store.appendRunRecords(missing);
  await withTransaction(pool, async (tx) => {
    if (!(await moveTaskToRun(tx, handover.taskId, fromRunId, handover.runId))) return;
    const message = `reset in Temporal: run ${handover.runId} carries the task on from step ${handover.belowStep + 1}, reusing ${kept.length} records of run ${fromRunId}, which keeps its own`;
    const payload = { run_id: handover.runId, reset_from_run: fromRunId, temporal_run_id: handover.temporalRunId, from_step: handover.belowStep + 1 };
    await appendTaskEvent(tx, taskEvent(handover.workflowId, runEventKey(handover.runId, 'handover'), EventType.StatusUpdate, at, { message, payload }));
    if (stopped) await endStoppedTask(tx, handover, at);
  });
}

/** The task of a reset whose session had ended: cancelled, as a task that starts in an ended session is. */
async function endStoppedTask(tx: Queryable, handover: TaskRunHandover, at: Date): Promise<void> {
  const errorMessage = 'the session ended before the reset run started';
  await recordTaskOutcome(tx, handover.taskId, { status: TaskStatus.Cancelled, result: '', errorMessage, model: '', completedAt: at });
  await appendTaskEvent(
    tx,
    taskEvent(handover.workflowId, runEventKey(handover.runId, 'finished'), EventType.WorkflowCancelled, at, { message: errorMessage }),
  );
}

/** Handovers as a worker takes them: each reset run's is looked at in the store once per process. */
export function runHandovers(deps: HandoverDeps) {
  const handedOver = new LRUCache<string, true>({ max: 10_000 });
  return {
    async takeOver(handover: TaskRunHandover): Promise<void> {
      if (handedOver.has(handover.runId)) return;
      const task = await findTask(deps.pool, handover.taskId);
      if (task?.runId !== handover.runId) await holdingHandoverLock(deps.pool, handover.taskId, () => handOver(deps, handover));
      handedOver.set(handover.runId, true);
    },
  };
}
