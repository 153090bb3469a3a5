import { ENGINE_CANCELED_REASON, SessionEndedError, type RuntimeStore } from '../core/store';
import type { TokenCounts } from '../core/llm/chat-model';
import { insertTask, recordTaskOutcome } from '../core/tasks/task-index';
import { TaskStatus, type ExecutionMode } from '../core/tasks/task-status';
import { failPermanentErrorsFast } from './failures';
import {
  TASK_AGENT_ID,
  cancellationIntentRecord,
  ownerOf,
  runCompletedRecord,
  runStartedRecord,
  sessionEndedRecord,
} from './task-records';

export interface StartTaskInput {
  taskId: string;
  workflowId: string;
  runId: string;
  tenantId: string;
  userId: string;
  sessionId: string;
  query: string;
  mode: ExecutionMode;
  /** Workflow time of the start, epoch milliseconds. */
  startedAtMs: number;
}

export type FinishedStatus = typeof TaskStatus.Completed | typeof TaskStatus.Failed | typeof TaskStatus.Cancelled;

export interface FinishTaskInput {
  taskId: string;
  runId: string;
  sessionId: string;
  status: FinishedStatus;
  result: string;
  errorMessage: string;
  usage: TokenCounts & { model: string };
  /** For an explicit cancellation (e.g. session_ended): recorded as the intent before the end. */
  cancellationReason?: string;
  finishedAtMs: number;
}

const terminalStatusOf = { COMPLETED: 'completed', FAILED: 'failed', CANCELLED: 'canceled' } as const;

export function createTaskLifecycleActivities({ store }: { store: RuntimeStore }) {
  return {
    /** Records the run's start and indexes the task, in one transaction. */
    async startTask(input: StartTaskInput): Promise<{ proceed: boolean }> {
      return failPermanentErrorsFast(async () => {
        const at = new Date(input.startedAtMs);
        const owner = ownerOf(input.runId, input.sessionId);
        if (input.sessionId) {
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
        const result = await start(command, (tx, started) =>
          insertTask(tx, {
            taskId: input.taskId,
            workflowId: input.workflowId,
            runId: input.runId,
            tenantId: input.tenantId,
            userId: input.userId,
            sessionId: input.sessionId,
            query: input.query,
            mode: input.mode,
            status: started.decision === 'proceed' ? TaskStatus.Running : TaskStatus.Cancelled,
            createdAt: at,
          }),
        );
        return { proceed: result.decision === 'proceed' };
      });
    },

    /** Records the terminal status, the run_completed record and the task's outcome, in one transaction. */
    async finishTask(input: FinishTaskInput): Promise<void> {
      return failPermanentErrorsFast(async () => {
        const at = new Date(input.finishedAtMs);
        const owner = ownerOf(input.runId, input.sessionId);
        const status = terminalStatusOf[input.status];
        if (input.cancellationReason) {
          await store.recordRunCancellation({
            runId: input.runId,
            reason: input.cancellationReason,
            record: cancellationIntentRecord(owner, at, input.cancellationReason),
          });
        }
        // Cancelled without a recorded request means the engine cancelled the run.
        const reason =
          status === 'canceled' ? (await store.loadRun(input.runId)).cancellationReason || ENGINE_CANCELED_REASON : undefined;
        const record = runCompletedRecord(owner, at, {
          status,
          ...(reason ? { reason } : {}),
          ...(input.errorMessage ? { error: input.errorMessage } : {}),
        });
        await store.recordRunTerminal({ runId: input.runId, status, record }, (tx) =>
          recordTaskOutcome(tx, input.taskId, {
            status: input.status,
            result: input.result,
            errorMessage: input.errorMessage,
            usage: { ...input.usage, costUsd: 0 },
            completedAt: at,
          }),
        );
      });
    },
  };
}
