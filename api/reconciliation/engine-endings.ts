import { setTimeout as sleep } from 'node:timers/promises';
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import type { Pool } from 'pg';
import type { RuntimeStore } from '../../core/store';
import { recordTaskEnd } from '../../core/tasks/run/task-lifecycle';
import type { FinishedStatus } from '../../core/tasks/run/task-end';
import { withTransaction } from '../../core/db/transaction';
import { EventType } from '../../core/events/event-types';
import { appendWhileTaskRuns, taskEvent } from '../../core/tasks/run/task-events';
import { findTaskByWorkflow } from '../../core/tasks/task-index';
import { taskStatusKey } from '../../workflows/search-attributes';
import { log } from '../../core/telemetry/logger';

// Tasks Temporal closed without the workflow recording its end: terminated from the Web UI or CLI,
// timed out, cancelled before it ran, or failed past its own handling. Each API process looks at
// Temporal's visibility every few seconds for task workflows that closed while Weft's status
// attribute still says RUNNING or QUEUED, and records the end the engine decided, with its
// provenance, in the same transaction as a workflow's own end would be: the task's status, its
// final event (open streams end), expired approvals and closed agents. Several processes may find
// the same task: the store keeps the first ending and the others change nothing. A run a reset
// ended is not the task's end: the task's stream says the reset happened, and the new run goes on.

export interface EngineEndings {
  /** One pass now (tests, and the loop). */
  reconcile(): Promise<number>;
  stop(): Promise<void>;
}

/** What Weft records for each way Temporal closes a run without the workflow's own ending. */
const endingOf: Record<string, { status: FinishedStatus; reason: string; message: string } | undefined> = {
  TERMINATED: { status: 'CANCELLED', reason: 'engine_terminated', message: 'terminated in Temporal' },
  TIMED_OUT: { status: 'TIMEOUT', reason: 'engine_timed_out', message: 'the workflow timed out in Temporal' },
  CANCELLED: { status: 'CANCELLED', reason: 'engine_canceled', message: 'cancelled in Temporal' },
  FAILED: { status: 'FAILED', reason: '', message: 'the workflow failed in Temporal' },
};

/** The task's stream says a reset replaced its run (once, whichever process sees it first). */
function noteReset(pool: Pool, replaced: WorkflowExecutionInfo, byRunId: string): Promise<boolean> {
  const message = `reset in Temporal: run ${replaced.runId} was ended and run ${byRunId} carries the task on from the reset point`;
  const at = replaced.closeTime ?? new Date();
  return withTransaction(pool, (tx) =>
    appendWhileTaskRuns(tx, taskEvent(replaced.workflowId, `engine/reset/${replaced.runId}`, EventType.StatusUpdate, at, { message })),
  );
}

const scanEveryMs = 2_000;
// Visibility indexes a close moments later; each pass looks back past the previous one by this much.
const overlapMs = 60_000;
const firstLookBackMs = 24 * 3600 * 1000;
const passDeadlineMs = 5_000;

export function startEngineEndings(deps: { temporal: Client; pool: Pool; store: RuntimeStore }): EngineEndings {
  let since = new Date(Date.now() - firstLookBackMs);

  const endOne = async (closed: WorkflowExecutionInfo): Promise<boolean> => {
    const latest = await deps.temporal.workflow.getHandle(closed.workflowId).describe();
    // A terminated run another run of the same workflow carries on is a reset: the task goes on.
    if (latest.runId !== closed.runId) {
      if (closed.status.name === 'TERMINATED') await noteReset(deps.pool, closed, latest.runId);
      return false;
    }
    const ending = endingOf[latest.status.name];
    if (!ending) return false;
    const task = await findTaskByWorkflow(deps.pool, closed.workflowId);
    if (!task || (task.status !== 'RUNNING' && task.status !== 'QUEUED')) return false;
    await recordTaskEnd(deps.store, {
      taskId: task.taskId,
      runId: task.runId,
      workflowId: closed.workflowId,
      sessionId: task.sessionId,
      status: ending.status,
      result: '',
      errorMessage: ending.message,
      model: '',
      ...(ending.reason ? { cancellationReason: ending.reason } : {}),
      finishedAtMs: (latest.closeTime ?? new Date()).getTime(),
    });
    return true;
  };

  const reconcile = async (): Promise<number> => {
    const scanStart = new Date();
    const query =
      `WorkflowType = "taskWorkflow" AND ExecutionStatus IN ("Terminated", "TimedOut", "Canceled", "Failed") ` +
      `AND ${taskStatusKey.name} IN ("RUNNING", "QUEUED") AND CloseTime > "${since.toISOString()}"`;
    let ended = 0;
    for await (const closed of deps.temporal.workflow.list({ query })) if (await endOne(closed)) ended += 1;
    since = new Date(scanStart.getTime() - overlapMs);
    return ended;
  };

  // Each pass has a deadline: with Temporal unreachable, its calls would otherwise retry for many
  // seconds and hold up the API's drain, which waits for the pass (closing the connection under a
  // retry about to fire would fail it outside any caller). Whatever a pass leaves, the next pass of
  // any API process covers.
  const stopping = new AbortController();
  const loop = (async () => {
    while (!stopping.signal.aborted) {
      await deps.temporal
        .withDeadline(Date.now() + passDeadlineMs, reconcile)
        .catch((err: unknown) => log().error({ err }, 'engine endings: a pass failed; trying again'));
      await sleep(scanEveryMs, undefined, { signal: stopping.signal, ref: false }).catch(() => undefined);
    }
  })();
  return {
    reconcile,
    async stop() {
      stopping.abort();
      await loop;
    },
  };
}
