import type { Queryable } from '../../db/transaction';
import { appendCallOf, type NewTaskEvent } from '../../events/event-log';
import type { RunStartCommand } from '../../store';
import { validateStart } from '../../store/run-starts';
import type { NewTask } from '../task-index';

/**
 * A one-shot task's start when nothing of it is recorded yet, in one statement: its run with the
 * run_started record that proves it (remembered as the start's first record), its row in the task
 * index and its WORKFLOW_STARTED event, as the store's start and the lifecycle's companion writes
 * would write them in their transaction. Every part hangs on the run's insert: when the run exists
 * already (a retry, a conflict, a race with another attempt) the statement writes nothing and
 * answers false, and the caller takes the full path, which answers each of those as it always has.
 * A statement commits atomically on its own, so no BEGIN, no lock read and no COMMIT go with it.
 */
export async function startFreshOneShotTask(db: Queryable, start: RunStartCommand, task: NewTask, event: NewTaskEvent): Promise<boolean> {
  validateStart(start, 'oneShot');
  const record = start.started;
  const append = appendCallOf(event, 18);
  const { rows } = await db.query<{ started: boolean }>(
    `WITH run AS (
       INSERT INTO runtime_runs (run_id, agent_id, session_id, parent_run_id, predecessor_run_id, labels, status,
                                 start_outcome, cancellation_reason, started_at, updated_at)
       VALUES ($1, $2, NULL, NULL, NULL, $3, 'running', 'proceed', '', $4, $4)
       ON CONFLICT (run_id) DO NOTHING
       RETURNING run_id
     ), started AS (
       INSERT INTO runtime_run_records (run_id, event_key, agent_id, session_id, turn_id, record_type, payload, recorded_at)
       SELECT run_id, $5, $2, NULL, '', $6, $7, $4 FROM run
       RETURNING record_id
     ), remembered AS (
       INSERT INTO runtime_run_lifecycle (run_id, change, subject, record_id) SELECT $1, 'start', '', record_id FROM started
     ), indexed AS (
       INSERT INTO tasks (task_id, workflow_id, run_id, tenant_id, user_id, submitted_by, session_id, query, mode, status, created_at, eval_id, template)
       SELECT $8, $9, run_id, $10, $11, $12, '', $13, $14, $15, $4, $16, $17 FROM run
       ON CONFLICT (task_id) DO NOTHING
     )
     SELECT EXISTS (SELECT 1 FROM run) AS started, (SELECT ${append.call} FROM run) AS seq`,
    [
      start.runId,
      start.agentId,
      JSON.stringify(start.labels ?? {}),
      start.startedAt,
      record.key,
      record.type,
      Buffer.from(record.payload),
      task.taskId,
      task.workflowId,
      task.tenantId,
      task.userId,
      task.submittedBy ?? '',
      task.query,
      task.mode,
      task.status,
      task.evalId ?? '',
      task.template ?? '',
      ...append.params,
    ],
  );
  return rows[0]!.started;
}
