import type { Pool } from 'pg';
import { appendCallOf, type NewTaskEvent } from '../../events/event-log';
import { EventType } from '../../events/event-types';
import { validateTerminal } from '../../store/run-lifecycle';
import { toEndedTask, type EndedTask, type EndedTaskRow } from '../task-index';
import type { usageTotals } from '../task-usage';
import { agentFinishedEvent } from './agent-events';
import { runStatusOf, type RunEnding } from './run-ending';
import { runCompletedRecord } from './run-records';
import { taskEvent } from './task-events';
import { runEventKey, TaskAgent, taskRunOf } from './task-ref';
import type { TaskStatus } from '../task-status';

export type FinishedStatus = typeof TaskStatus.Completed | typeof TaskStatus.Failed | typeof TaskStatus.Cancelled | typeof TaskStatus.Timeout;

export interface FinishTaskInput {
  taskId: string;
  /** The task's own run: its workflow's id, or the run a Temporal reset gave it. */
  runId: string;
  /** The task's workflow, whose stream the end goes to; absent in histories from before a reset could give the task another run (it was the run id). */
  workflowId?: string;
  sessionId: string;
  status: FinishedStatus;
  result: string;
  errorMessage: string;
  /** BUDGET_EXCEEDED when a budget ended the task. */
  code?: 'BUDGET_EXCEEDED';
  model: string;
  /** An explicit cancellation (session_ended, approval_rejected, ...): recorded as intent before the end. */
  cancellationReason?: string;
  finishedAtMs: number;
}

const finalEventOf = {
  COMPLETED: EventType.WorkflowCompleted,
  FAILED: EventType.WorkflowFailed,
  CANCELLED: EventType.WorkflowCancelled,
  TIMEOUT: EventType.WorkflowFailed,
} as const;

/** The stream a task's end goes to: histories from before a reset could give the task another run named only the run, which was the workflow. */
export const workflowOfEnd = (input: FinishTaskInput) => input.workflowId ?? input.runId;

/** What a task's end writes, whichever way it is written: the run's ending, the outcome, and the final events. */
export function taskEndOf(input: FinishTaskInput) {
  const at = new Date(input.finishedAtMs);
  const owner = { ...taskRunOf(input.runId), sessionId: input.sessionId };
  const workflowId = workflowOfEnd(input);
  const key = (name: string) => runEventKey(input.runId, name);
  const error = input.code ? `${input.code}: ${input.errorMessage}` : input.errorMessage;
  const ending: RunEnding = {
    status: runStatusOf[input.status],
    at,
    ...(error ? { error } : {}),
    ...(input.cancellationReason ? { cancellationReason: input.cancellationReason } : {}),
  };
  const message = input.status === 'COMPLETED' ? 'task completed' : `task ${input.status.toLowerCase()}${error ? `: ${error}` : ''}`;
  const finalEvents = (budgetUsage?: Awaited<ReturnType<typeof usageTotals>>): NewTaskEvent[] => [
    ...(budgetUsage
      ? [taskEvent(workflowId, key('budget-exceeded'), EventType.BudgetExceeded, at, { message: input.errorMessage, payload: { ...budgetUsage } })]
      : []),
    ...(error ? [taskEvent(workflowId, key('error'), EventType.ErrorOccurred, at, { message: error })] : []),
    taskEvent(workflowId, key('finished'), finalEventOf[input.status], at, { message, payload: { status: input.status } }),
  ];
  const outcome = { status: input.status, result: input.result, errorMessage: error, model: input.model, completedAt: at };
  const agentOutcome = { status: input.status, result: input.result, error: error ?? '', at };
  const mainAgent = { taskId: input.taskId, workflowId, runId: input.runId };
  return { at, owner, error, ending, finalEvents, outcome, agentOutcome, mainAgent };
}

/** The SQLSTATE weft_end_task raises when the end is not the common case (migration 027). */
const notCommon = 'WF001';

/**
 * A one-shot task's end in one statement (weft_end_task, migration 027), when it is the common
 * one: completed or failed, no session turn, no budget's totals, no cancellation to record. The
 * task as it ended, or undefined when the end is not that (or the statement found it otherwise: a
 * retry of a recorded end, a conflict), for the caller to record it the full way, which answers
 * each of those as it always has.
 */
export async function endCommonTask(pool: Pool, input: FinishTaskInput): Promise<EndedTask | undefined> {
  if (input.sessionId || input.code || input.cancellationReason || (input.status !== 'COMPLETED' && input.status !== 'FAILED')) return undefined;
  const end = taskEndOf(input);
  const status = runStatusOf[input.status];
  const record = runCompletedRecord(end.owner, end.at, { status, ...(end.ending.error ? { error: end.ending.error } : {}) });
  validateTerminal({ runId: input.runId, status, record });
  const agentEvent = appendCallOf(agentFinishedEvent(end.mainAgent, TaskAgent.Main, end.agentOutcome), 1).params;
  const events = end.finalEvents().map((event) => appendCallOf(event, 1).params);
  const column = (i: number) => events.map((params) => params[i]);
  try {
    const { rows } = await pool.query<EndedTaskRow>(`SELECT * FROM weft_end_task(${Array.from({ length: 27 }, (_, i) => `$${i + 1}`).join(', ')})`, [
      input.runId,
      record.sessionId ?? null,
      status,
      record.key,
      record.agentId,
      record.type,
      Buffer.from(record.payload),
      end.at,
      input.taskId,
      input.status,
      input.result,
      end.error,
      input.model,
      TaskAgent.Main,
      // Every parameter of each append but its time (the end's) and channel (the last parameter).
      ...agentEvent.slice(0, 6),
      ...[0, 1, 2, 3, 4, 5].map(column),
      agentEvent[7],
    ]);
    return toEndedTask(rows[0]!);
  } catch (err) {
    if ((err as { code?: string }).code === notCommon) return undefined;
    throw err;
  }
}
