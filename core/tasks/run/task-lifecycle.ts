import { commitWith } from '../../db/transaction';
import { closeTaskLeftovers } from '../task-leftovers';
import { recordMainAgentEnd } from './main-agent';
import { appendTaskEvents } from '../../events/event-log';
import { EventType } from '../../events/event-types';
import { endIfExpired } from '../../sessions/conversations';
import { recordTaskTurnIn } from '../../sessions/history';
import { SessionEndedError, type RuntimeStore } from '../../store';
import { findEndedTask, insertTask, recordTaskOutcome, type EndedTask, type NewTask } from '../task-index';
import { startFreshOneShotTask } from './fresh-start';
import { endCommonTask, taskEndOf, workflowOfEnd, type FinishTaskInput } from './task-end';
import { TaskStatus, type ExecutionMode } from '../task-status';
import { usageTotals, type Spend } from '../task-usage';
import type { TaskFork } from './forked-steps';
import type { TaskEval } from './eval-tools';
import { endRun } from './run-ending';
import { cancellationIntentRecord, runStartOf } from './run-records';
import { taskEvent } from './task-events';
import { taskRunOf, type TaskRef } from './task-ref';
import type { TaskWriteDeps } from './task-write-deps';
import { log } from '../../telemetry/logger';

export interface StartTaskInput extends TaskRef {
  /** The task's workflow: its own run is keyed by it (taskRunOf). */
  workflowId: string;
  query: string;
  mode: ExecutionMode;
  /** Workflow time of the start, epoch milliseconds. */
  startedAtMs: number;
  /** Only these tools are offered (AgentService's available_tools); all registered ones when absent. */
  allowedTools?: string[];
  /** Set when the task is a fork: its run is labelled with where it came from. */
  fork?: TaskFork;
  /** Set when the task is one case of an eval: indexed under the eval, apart from production listings. */
  eval?: TaskEval;
  /** The template (name@version) whose plan the task runs. */
  template?: string;
}

export interface ToolSummary {
  name: string;
  dangerous: boolean;
}

export interface CancellationRequestInput {
  /** The task's own run. */
  runId: string;
  sessionId: string;
  reason: string;
  atMs: number;
}

/**
 * Opens the task's session if needed, starts its run (run_started), indexes the task and emits
 * WORKFLOW_STARTED, together. An ended session records the run cancelled instead, and
 * `proceed` is false. Idempotent: a retry returns the recorded decision. `recordedNow` says this
 * call wrote the start (its run holds nothing else yet).
 */
async function startTask(
  { store, pool, tools }: TaskWriteDeps,
  input: StartTaskInput,
): Promise<{ proceed: boolean; tools: ToolSummary[]; recordedNow: boolean }> {
  const at = new Date(input.startedAtMs);
  const owner = { ...taskRunOf(input.workflowId), sessionId: input.sessionId };
  const labels = {
    task_id: input.taskId,
    tenant_id: input.tenantId,
    user_id: input.userId,
    ...(input.submittedBy ? { submitted_by: input.submittedBy } : {}),
    ...(input.fork ? { forked_from_task: input.fork.fromTaskId, forked_from_run: input.fork.fromRunId, forked_from_step: String(input.fork.fromStep) } : {}),
    ...(input.eval ? { eval_id: input.eval.evalId, eval_of_task: input.eval.fromTaskId } : {}),
  };
  const startedMessage = input.fork
    ? `task started as a fork of ${input.fork.fromTaskId} from step ${input.fork.fromStep}`
    : input.eval
      ? `task started as eval ${input.eval.evalId} of ${input.eval.fromTaskId}`
      : 'task started';
  const indexed = (status: NewTask['status']): NewTask => ({
    taskId: input.taskId,
    workflowId: input.workflowId,
    runId: owner.runId,
    tenantId: input.tenantId,
    userId: input.userId,
    ...(input.submittedBy ? { submittedBy: input.submittedBy } : {}),
    sessionId: input.sessionId,
    query: input.query,
    mode: input.mode,
    status,
    createdAt: at,
    ...(input.eval ? { evalId: input.eval.evalId } : {}),
    ...(input.template ? { template: input.template } : {}),
  });
  const startedEvent = taskEvent(input.workflowId, 'started', EventType.WorkflowStarted, at, { message: startedMessage });
  const offered = offeredTools(tools, input);
  // Outside a session nothing can stop the start: a first attempt writes it in one statement.
  if (!input.sessionId && (await startFreshOneShotTask(pool, runStartOf(owner, at, labels), indexed(TaskStatus.Running), startedEvent)))
    return { proceed: true, tools: offered, recordedNow: true };
  if (input.sessionId) {
    await endIfExpired(pool, input.sessionId, at);
    // Sessions named by a task are opened on first use; an ended one stops the run below.
    await store.createSession(input.sessionId, at).catch((err: unknown) => {
      if (!(err instanceof SessionEndedError)) throw err;
    });
  }
  const start = input.sessionId ? store.startRootRun : store.startOneShotRun;
  const result = await start(runStartOf(owner, at, labels), async (tx, started) => {
    const proceed = started.decision === 'proceed';
    // Sent together (pipelined), with the COMMIT right behind them.
    await commitWith(
      tx,
      Promise.all([
        insertTask(tx, indexed(proceed ? TaskStatus.Running : TaskStatus.Cancelled)),
        appendTaskEvents(tx, [
          startedEvent,
          ...(proceed ? [] : [taskEvent(input.workflowId, 'finished', EventType.WorkflowCancelled, at, { message: 'session ended before the task started' })]),
        ]),
      ]),
    );
  });
  return { proceed: result.decision === 'proceed', tools: offered, recordedNow: result.inserted };
}

/** The tools a task's agent is offered: the tenant's, narrowed to the task's allowed tools when it names them. */
export function offeredTools(tools: TaskWriteDeps['tools'], task: Pick<StartTaskInput, 'tenantId' | 'allowedTools'>): ToolSummary[] {
  const offered = tools.list(task.tenantId).filter((tool) => !task.allowedTools || task.allowedTools.includes(tool.name));
  return offered.map((tool) => ({ name: tool.name, dangerous: tool.dangerous }));
}

/** One log line per task end, and the end in the metrics (a retried end may be told twice: a log's and a counter's rounding, not a record). */
function reportTaskEnd({ observer }: TaskWriteDeps, input: FinishTaskInput, task: EndedTask): void {
  const seconds = Math.max(0, input.finishedAtMs - task.createdAt.getTime()) / 1000;
  const line = {
    taskId: input.taskId,
    workflowId: workflowOfEnd(input),
    tenantId: task.tenantId,
    userId: task.userId,
    status: input.status,
    mode: task.mode,
    seconds,
    ...task.spent,
  };
  log().info(input.errorMessage ? { ...line, error: input.errorMessage } : line, 'task ended');
  observer?.taskEnded({ status: input.status, mode: task.mode, seconds });
}

/** The start and end of a task's own run, each one transaction with the task index and the task's events. */
export function taskLifecycle(deps: TaskWriteDeps) {
  const { store } = deps;
  return {
    start: (input: StartTaskInput) => startTask(deps, input),

    /** CancelTask's intent: the first reason is kept, and the run's end carries the same one. */
    async recordCancellationRequest(input: CancellationRequestInput): Promise<void> {
      const owner = { ...taskRunOf(input.runId), sessionId: input.sessionId };
      await store.recordRunCancellation({
        runId: input.runId,
        reason: input.reason,
        record: cancellationIntentRecord(owner, new Date(input.atMs), input.reason),
      });
    },

    /** Records the end; what the task spent, as the store recorded it (every model call: routing, planning, agents, synthesis). */
    async finish(input: FinishTaskInput): Promise<Spend> {
      // An end an earlier attempt recorded is read back, and reported again.
      const task = (await endCommonTask(deps.pool, input)) ?? (await recordTaskEnd(store, input)) ?? (await findEndedTask(deps.pool, input.taskId));
      if (!task) throw new Error(`task ${input.taskId} ended, but the task index has no row for it`);
      reportTaskEnd(deps, input, task);
      return task.spent;
    },
  };
}

/**
 * Records the run's terminal status (run_completed), the task's outcome, its session turn, and
 * its final events, in one transaction. Proposed again with a later time (a local activity after
 * a failed workflow task), the recorded ending stands and nothing is returned; otherwise the
 * task as it ended.
 */
export async function recordTaskEnd(store: RuntimeStore, input: FinishTaskInput): Promise<EndedTask | undefined> {
  const { at, owner, ending, finalEvents, outcome, agentOutcome, mainAgent } = taskEndOf(input);
  const turnIn = input.status === 'COMPLETED' && input.sessionId !== '';
  let ended: EndedTask | undefined;
  const recorded = await endRun(store, owner, ending, async (tx) => {
    // Sent together (pipelined), and run in the order called: the main agent ends as the task did
    // (with its event, before the task's final ones), then what else is left open is closed.
    const closing = Promise.all([
      recordTaskOutcome(tx, input.taskId, outcome),
      recordMainAgentEnd(tx, mainAgent, agentOutcome),
      closeTaskLeftovers(tx, input.taskId, at),
    ]);
    // The final events follow at once, with the COMMIT, unless a session's turn or a budget's totals come first.
    if (!turnIn && input.code !== 'BUDGET_EXCEEDED') {
      [[ended]] = await commitWith(tx, Promise.all([closing, appendTaskEvents(tx, finalEvents())]));
      return;
    }
    [ended] = await closing;
    if (turnIn) await recordTaskTurnIn(tx, { taskId: input.taskId, sessionId: input.sessionId, answer: input.result, at });
    const budgetUsage = input.code === 'BUDGET_EXCEEDED' ? await usageTotals(tx, input.taskId) : undefined;
    await commitWith(tx, appendTaskEvents(tx, finalEvents(budgetUsage)));
  });
  return recorded ? ended : undefined;
}
