import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Pool } from 'pg';
import { listTaskEvents } from '../core/events/event-log';
import { RecordType, type RuntimeStore, type StoredRecord } from '../core/store';
import { readRunLog } from '../core/transcript';
import { findTask, type TaskRecord } from '../core/tasks/task-index';
import { endedAfter } from '../api/tasks/task-event-tail';
import { historyProblems } from './history-checks';

// `weft verify`: Temporal's view of each task against the store's, and the store's own invariants.
// Every disagreement is reported; none is repaired.

/** The store statuses each Temporal status of a task's workflow may stand beside. */
const agreeingStatuses: Record<string, readonly string[]> = {
  RUNNING: ['QUEUED', 'RUNNING'],
  // A cancelled, timed-out or rejected task returns its result: the workflow completes.
  COMPLETED: ['COMPLETED', 'CANCELLED', 'TIMEOUT'],
  FAILED: ['FAILED'],
  CANCELLED: ['CANCELLED'],
  TERMINATED: ['CANCELLED'],
  TIMED_OUT: ['TIMEOUT'],
};

/** What the store says about a task that Temporal would contradict, or that breaks its own rules. */
async function storeProblems(pool: Pool, task: TaskRecord, records: StoredRecord[], closed: boolean): Promise<string[]> {
  const problems: string[] = [];
  const count = (type: string) => records.filter((record) => record.type === type).length;
  if (count(RecordType.RunStarted) !== 1) problems.push(`${count(RecordType.RunStarted)} run_started records (one expected)`);
  const terminals = count(RecordType.RunCompleted);
  if (terminals > 1 || (closed && terminals !== 1)) problems.push(`${terminals} run_completed records (${closed ? 'one' : 'at most one'} expected)`);
  const events = await listTaskEvents(pool, task.workflowId, 0, 100_000);
  const gap = events.findIndex((event, index) => event.seq !== index + 1);
  if (gap >= 0) problems.push(`event ${gap + 1} has seq ${events[gap]!.seq}: the log has a gap`);
  if (closed && !events.reduce(endedAfter, false)) problems.push(`the event log ends with ${events.at(-1)?.type ?? 'nothing'}, not a final event`);
  const { rows } = await pool.query<{ steps: string; pending: string; running: string }>(
    `SELECT (SELECT coalesce(sum(total_tokens), 0) FROM task_usage WHERE task_id = $1) AS steps,
            (SELECT count(*) FROM approvals WHERE task_id = $1 AND status = 'pending') AS pending,
            (SELECT count(*) FROM task_agents WHERE task_id = $1 AND status = 'RUNNING') AS running`,
    [task.taskId],
  );
  const sums = rows[0]!;
  if (closed && Number(sums.steps) !== task.usage.totalTokens) problems.push(`usage ${task.usage.totalTokens} tokens, but its steps sum to ${sums.steps}`);
  if (closed && Number(sums.pending) > 0) problems.push(`${sums.pending} approvals pending on a finished task`);
  if (closed && Number(sums.running) > 0) problems.push(`${sums.running} agents RUNNING on a finished task`);
  return problems;
}

/** The task's store runs, its current one first, each followed by the run a Temporal reset continued (the `reset_from_run` label). */
async function runChainOf(store: RuntimeStore, runId: string): Promise<string[]> {
  const chain = [runId];
  for (let from = (await store.loadRun(runId)).labels.reset_from_run; from && !chain.includes(from); from = (await store.loadRun(from)).labels.reset_from_run)
    chain.push(from);
  return chain;
}

/** A run a reset replaced was started once and ended once (by its own end, or by the handover). */
async function replacedRunProblems(store: RuntimeStore, runIds: string[]): Promise<string[]> {
  const problems = await Promise.all(
    runIds.map(async (runId) => {
      const records = await readRunLog(store, runId);
      const count = (type: string) => records.filter((record) => record.type === type).length;
      const started = count(RecordType.RunStarted);
      const ended = count(RecordType.RunCompleted);
      return started === 1 && ended === 1
        ? []
        : [`run ${runId}, which a reset replaced, has ${started} run_started and ${ended} run_completed records (one each expected)`];
    }),
  );
  return problems.flat();
}

/** Every disagreement for one task, as lines; none means it verifies clean. */
export async function verifyTask(deps: { pool: Pool; store: RuntimeStore; temporal: Client }, taskId: string): Promise<string[]> {
  const task = await findTask(deps.pool, taskId);
  if (!task) return [`${taskId}: not in the store`];
  let latest: { runId: string; status: { name: string } };
  try {
    latest = await deps.temporal.workflow.getHandle(task.workflowId).describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return [`${taskId}: the store has it, Temporal does not`];
    throw err;
  }
  const temporalStatus = latest.status.name;
  const problems: string[] = [];
  const agreeing = agreeingStatuses[temporalStatus] ?? [];
  if (!agreeing.includes(task.status)) problems.push(`Temporal says ${temporalStatus}, the store says ${task.status}`);
  const closed = temporalStatus !== 'RUNNING';
  const taskLog = await readRunLog(deps.store, task.runId);
  const runChain = await runChainOf(deps.store, task.runId);
  problems.push(
    ...(await storeProblems(deps.pool, task, taskLog, closed)),
    ...(await replacedRunProblems(deps.store, runChain.slice(1))),
    ...(await historyProblems(deps, { ...task, taskLog, runChain, latestRunId: latest.runId }, closed)),
  );
  return problems.map((problem) => `${taskId}: ${problem}`);
}

/** The tasks created since `since`, oldest first. */
export async function tasksSince(pool: Pool, since: Date): Promise<string[]> {
  const { rows } = await pool.query<{ task_id: string }>('SELECT task_id FROM tasks WHERE created_at >= $1 ORDER BY created_at', [since]);
  return rows.map((row) => row.task_id);
}
