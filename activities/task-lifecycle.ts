import { appendTaskEvent } from '../core/events/event-log';
import { EventType } from '../core/events/event-types';
import { endIfExpired } from '../core/sessions/conversations';
import { recordTaskTurnIn } from '../core/sessions/history';
import { SessionEndedError } from '../core/store';
import { insertTask, recordTaskOutcome, type NewTask } from '../core/tasks/task-index';
import { TaskStatus } from '../core/tasks/task-status';
import { usageTotals } from '../core/tasks/task-usage';
import type { ActivityDeps } from './deps';
import { failPermanentErrorsFast } from './failures';
import { taskEvent } from './task-events';
import { endRun } from './end-run';
import { TASK_AGENT_ID, cancellationIntentRecord, ownerOf, runStartedRecord, sessionEndedRecord } from './task-records';

export interface StartTaskInput extends Omit<NewTask, 'status' | 'createdAt'> {
  /** Workflow time of the start, epoch milliseconds. */
  startedAtMs: number;
  /** Only these tools are offered (AgentService's available_tools); all registered ones when absent. */
  allowedTools?: string[];
}

export interface ToolSummary {
  name: string;
  dangerous: boolean;
}

export type FinishedStatus =
  | typeof TaskStatus.Completed
  | typeof TaskStatus.Failed
  | typeof TaskStatus.Cancelled
  | typeof TaskStatus.Timeout;

export interface FinishTaskInput {
  taskId: string;
  runId: string;
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

export interface CancellationRequestInput {
  runId: string;
  sessionId: string;
  reason: string;
  atMs: number;
}

const terminalStatusOf = { COMPLETED: 'completed', FAILED: 'failed', CANCELLED: 'canceled', TIMEOUT: 'canceled' } as const;
const finalEventOf = {
  COMPLETED: EventType.WorkflowCompleted,
  FAILED: EventType.WorkflowFailed,
  CANCELLED: EventType.WorkflowCancelled,
  TIMEOUT: EventType.WorkflowFailed,
} as const;

export function createTaskLifecycleActivities({ store, pool, tools }: ActivityDeps) {
  return {
    /** Records the run's start, indexes the task and emits WORKFLOW_STARTED, in one transaction. */
    async startTask(input: StartTaskInput): Promise<{ proceed: boolean; tools: ToolSummary[] }> {
      return failPermanentErrorsFast(async () => {
        const at = new Date(input.startedAtMs);
        const owner = ownerOf(input.runId, input.sessionId);
        if (input.sessionId) {
          await endIfExpired(pool, input.sessionId, at);
          // Sessions named by a task are opened on first use; an ended one stops the run below.
          await store.createSession(input.sessionId, at).catch((err: unknown) => {
            if (!(err instanceof SessionEndedError)) throw err;
          });
        }
        const labels = { task_id: input.taskId, tenant_id: input.tenantId, user_id: input.userId };
        const command = {
          ...owner,
          agentId: TASK_AGENT_ID,
          labels,
          startedAt: at,
          started: runStartedRecord(owner, at, labels),
          canceled: sessionEndedRecord(owner, at),
        };
        const start = input.sessionId ? store.startRootRun : store.startOneShotRun;
        const result = await start(command, async (tx, started) => {
          const proceed = started.decision === 'proceed';
          await insertTask(tx, {
            taskId: input.taskId,
            workflowId: input.workflowId,
            runId: input.runId,
            tenantId: input.tenantId,
            userId: input.userId,
            sessionId: input.sessionId,
            query: input.query,
            mode: input.mode,
            status: proceed ? TaskStatus.Running : TaskStatus.Cancelled,
            createdAt: at,
          });
          await appendTaskEvent(tx, taskEvent(input.workflowId, 'started', EventType.WorkflowStarted, at, { message: 'task started' }));
          if (!proceed) {
            await appendTaskEvent(
              tx,
              taskEvent(input.workflowId, 'finished', EventType.WorkflowCancelled, at, { message: 'session ended before the task started' }),
            );
          }
        });
        return {
          proceed: result.decision === 'proceed',
          tools: tools
            .list()
            .filter((tool) => !input.allowedTools || input.allowedTools.includes(tool.name))
            .map((tool) => ({ name: tool.name, dangerous: tool.dangerous })),
        };
      });
    },

    /** CancelTask's intent: the first reason is kept; the workflow's end carries the same one. */
    async recordCancellationRequest(input: CancellationRequestInput): Promise<void> {
      return failPermanentErrorsFast(async () => {
        const owner = ownerOf(input.runId, input.sessionId);
        const at = new Date(input.atMs);
        await store.recordRunCancellation({ runId: input.runId, reason: input.reason, record: cancellationIntentRecord(owner, at, input.reason) });
      });
    },

    /** Records the terminal status, run_completed, the task's outcome and its final event, in one transaction. */
    async finishTask(input: FinishTaskInput): Promise<void> {
      return failPermanentErrorsFast(async () => {
        const at = new Date(input.finishedAtMs);
        const owner = ownerOf(input.runId, input.sessionId);
        const status = terminalStatusOf[input.status];
        const error = input.code ? `${input.code}: ${input.errorMessage}` : input.errorMessage;
        const ending = { status, at, ...(error ? { error } : {}), ...(input.cancellationReason ? { cancellationReason: input.cancellationReason } : {}) };
        await endRun(store, owner, ending, async (tx) => {
          await recordTaskOutcome(tx, input.taskId, { status: input.status, result: input.result, errorMessage: error, model: input.model, completedAt: at });
          if (input.status === 'COMPLETED' && input.sessionId) {
            await recordTaskTurnIn(tx, { taskId: input.taskId, sessionId: input.sessionId, answer: input.result, at });
          }
          if (input.code === 'BUDGET_EXCEEDED') {
            const usage = await usageTotals(tx, input.taskId);
            await appendTaskEvent(
              tx,
              taskEvent(input.runId, 'budget-exceeded', EventType.BudgetExceeded, at, { message: input.errorMessage, payload: { ...usage } }),
            );
          }
          if (error) await appendTaskEvent(tx, taskEvent(input.runId, 'error', EventType.ErrorOccurred, at, { message: error }));
          await appendTaskEvent(
            tx,
            taskEvent(input.runId, 'finished', finalEventOf[input.status], at, {
              message: input.status === 'COMPLETED' ? 'task completed' : `task ${input.status.toLowerCase()}${error ? `: ${error}` : ''}`,
              payload: { status: input.status },
            }),
          );
        });
      });
    },
  };
}
