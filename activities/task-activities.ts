import { Context } from '@temporalio/activity';
import type { ChatModel, TokenCounts } from '../core/llm/chat-model';
import { ENGINE_CANCELED_REASON, SessionEndedError, type RuntimeStore } from '../core/store';
import { insertTask, recordTaskOutcome } from '../core/tasks/task-index';
import { TaskStatus, type ExecutionMode } from '../core/tasks/task-status';
import { failPermanentErrorsFast } from './failures';
import { TASK_AGENT_ID, runCompletedRecord, runStartedRecord, sessionEndedRecord } from './task-records';

export interface TaskActivityDeps {
  store: RuntimeStore;
  chatModel: ChatModel;
  /** Model used when a step does not name one. */
  defaultModel: string;
}

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

export interface ModelStepInput {
  query: string;
  model?: string;
}

export interface ModelStepResult {
  text: string;
  model: string;
  finishReason: string;
  usage: TokenCounts;
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
  finishedAtMs: number;
}

const terminalStatusOf = { COMPLETED: 'completed', FAILED: 'failed', CANCELLED: 'canceled' } as const;

export function createTaskActivities(deps: TaskActivityDeps) {
  const { store } = deps;
  return {
    /** Records the run's start and indexes the task, in one transaction. */
    async startTask(input: StartTaskInput): Promise<{ proceed: boolean }> {
      return failPermanentErrorsFast(async () => {
        const at = new Date(input.startedAtMs);
        const owner = { runId: input.runId, ...(input.sessionId ? { sessionId: input.sessionId } : {}) };
        if (input.sessionId) {
          // Sessions submitted with a task are opened on first use; an ended one stops the run below.
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

    /** One LLM call. Cancelling the workflow aborts the HTTP request. */
    async callModel(input: ModelStepInput): Promise<ModelStepResult> {
      return failPermanentErrorsFast(async () => {
        const completion = await deps.chatModel.complete({
          model: input.model || deps.defaultModel,
          messages: [{ role: 'user', content: input.query }],
          signal: Context.current().cancellationSignal,
        });
        return completion;
      });
    },

    /** Records the terminal status, the run_completed record and the task's outcome, in one transaction. */
    async finishTask(input: FinishTaskInput): Promise<void> {
      return failPermanentErrorsFast(async () => {
        const at = new Date(input.finishedAtMs);
        const status = terminalStatusOf[input.status];
        const owner = { runId: input.runId, ...(input.sessionId ? { sessionId: input.sessionId } : {}) };
        const run = await store.loadRun(input.runId);
        const reason = status === 'canceled' ? run.cancellationReason || ENGINE_CANCELED_REASON : undefined;
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

export type TaskActivities = ReturnType<typeof createTaskActivities>;
