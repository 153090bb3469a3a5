import { defaultPayloadConverter } from '@temporalio/common';
import type { Client } from '@temporalio/client';
import type { temporal as proto } from '@temporalio/proto';
import type { Pool } from 'pg';
import type { ModelStepInput, ModelStepResult } from '../core/tasks/run/model-step';
import { stepReplyKey, toolResultKey } from '../core/tasks/run/run-records';
import { TASK_RUN_AGENT_ID, agentRunIdOf } from '../core/tasks/run/task-ref';
import type { ToolOutcomeResolutionInput } from '../core/tasks/run/tool-step';
import type { RuntimeStore, StoredRecord } from '../core/store';
import { readRunLog } from '../core/transcript';

// `weft verify`'s reading of Temporal's histories: every model step and tool call an activity
// completed has its record in the store (with the usage the step reported), no record lacks an
// activity that completed or was abandoned while it ran, every agent's run is linked to its task's
// run, and no agent is RUNNING once its child workflow has closed.

type HistoryEvent = proto.api.history.v1.IHistoryEvent;

/** A step an activity completed, as the store must hold it. */
interface CompletedStep {
  runId: string;
  key: string;
  what: string;
  /** A model step's tokens, as the activity returned them. */
  tokens?: number;
}

const decode = <T>(payloads: proto.api.common.v1.IPayloads | null | undefined): T | undefined => {
  const first = payloads?.payloads?.[0];
  return first ? defaultPayloadConverter.fromPayload<T>(first) : undefined;
};

/** Every run of a workflow id (all of them: a reset's abandoned run wrote records too), each run's events. */
export async function runsOf(temporal: Client, workflowId: string, latestRunId?: string): Promise<HistoryEvent[][]> {
  const runIds = new Set<string>([latestRunId ?? (await temporal.workflow.getHandle(workflowId).describe()).runId]);
  for await (const run of temporal.workflow.list({ query: `WorkflowId = "${workflowId}"` })) runIds.add(run.runId);
  return Promise.all([...runIds].map(async (runId) => (await temporal.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? []));
}

/** The record a model step or tool call activity writes, if it writes one. */
function stepOf(activity: proto.api.history.v1.IActivityTaskScheduledEventAttributes): Omit<CompletedStep, 'tokens'> | undefined {
  const type = activity.activityType?.name;
  if (type === 'runModelStep') {
    const input = decode<ModelStepInput>(activity.input)!;
    return { runId: input.runId, key: stepReplyKey(runOf(input), input.step), what: `model step ${input.step + 1} of ${input.runId}` };
  }
  // A client's result (an OpenAI client's own tool) is recorded as a tool's outcome is.
  const recordsOutcome = type === 'runToolCall' || type === 'recordClientToolResult';
  const call = recordsOutcome || type === 'resolveToolOutcome' ? decode<ToolOutcomeResolutionInput>(activity.input)! : undefined;
  if (!call || (type === 'resolveToolOutcome' && call.resolution !== 'run_again')) return undefined;
  // A call run again at a person's word is stored as its own attempt.
  const id = recordsOutcome ? call.call.id : `${call.call.id}.again`;
  return { runId: call.runId, key: toolResultKey(runOf(call), id), what: `tool call ${id} of ${call.runId}` };
}

/**
 * One run's model steps and tool calls: those an activity completed, whose records the store must
 * hold, and the keys of those a cancel or the run's end abandoned while they ran. An abandoned
 * step's activity may still have finished its call and recorded it: the call was made and paid for,
 * so its record may stand although Temporal never took the result.
 */
function stepsOf(events: HistoryEvent[]): { completed: CompletedStep[]; abandoned: string[] } {
  const scheduled = new Map(
    events.filter((e) => e.activityTaskScheduledEventAttributes).map((e) => [String(e.eventId), e.activityTaskScheduledEventAttributes!]),
  );
  const closedWithin = new Set(
    events.flatMap((e) => {
      const closing = e.activityTaskFailedEventAttributes ?? e.activityTaskTimedOutEventAttributes;
      return closing ? [String(closing.scheduledEventId)] : [];
    }),
  );
  const completed = events.flatMap((event): CompletedStep[] => {
    const done = event.activityTaskCompletedEventAttributes;
    const activity = done && scheduled.get(String(done.scheduledEventId));
    const step = activity && stepOf(activity);
    if (!step) return [];
    closedWithin.add(String(done.scheduledEventId));
    if (activity.activityType?.name !== 'runModelStep') return [step];
    const result = decode<ModelStepResult>(done.result);
    return result?.kind === 'reply' ? [{ ...step, tokens: result.usage.totalTokens }] : [];
  });
  const abandoned = [...scheduled].flatMap(([eventId, activity]) => {
    const step = !closedWithin.has(eventId) && stepOf(activity);
    return step ? [step.key] : [];
  });
  return { completed, abandoned };
}

const runOf = (input: { runId: string; runAgentId?: string }) => ({ runId: input.runId, runAgentId: input.runAgentId ?? TASK_RUN_AGENT_ID });

const childWorkflowsOf = (events: HistoryEvent[]) =>
  events.flatMap((e) =>
    e.childWorkflowExecutionStartedEventAttributes?.workflowExecution?.workflowId
      ? [e.childWorkflowExecutionStartedEventAttributes.workflowExecution.workflowId]
      : [],
  );

/** The store's records that stand for a completed activity: model replies and tool results. */
const isStepRecord = (runId: string, key: string) => new RegExp(`^${runId.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/(step-\\d+/reply|tool/[^/]+)$`).test(key);

/** The task as verify has read it already: its run's log, the runs a reset gave it (newest first), and the latest run of its workflow. */
interface VerifiedTask {
  taskId: string;
  workflowId: string;
  runId: string;
  taskLog: StoredRecord[];
  /** The task's store runs, its current one first, each followed by the one it was reset from. */
  runChain: string[];
  latestRunId: string;
}

/**
 * The keys a completed step's record has in the runs that reset copied it into: a reset's run
 * starts with its predecessor's records of the steps before the reset point, under its own run.
 */
function withResetCopies(keys: Set<string>, runChain: string[]): Set<string> {
  const expected = new Set(keys);
  for (let i = runChain.length - 1; i > 0; i--) {
    const [from, to] = [runChain[i]!, runChain[i - 1]!];
    for (const key of [...expected]) if (key.startsWith(`${from}/`)) expected.add(`${to}${key.slice(from.length)}`);
  }
  return expected;
}

export async function historyProblems(deps: { pool: Pool; store: RuntimeStore; temporal: Client }, task: VerifiedTask, closed: boolean): Promise<string[]> {
  const taskRuns = await runsOf(deps.temporal, task.workflowId, task.latestRunId);
  const children = [...new Set(taskRuns.flatMap(childWorkflowsOf))];
  const childRuns = await Promise.all(children.map((child) => runsOf(deps.temporal, child)));
  const runs = [...taskRuns, ...childRuns.flat()].map(stepsOf);
  const steps = runs.flatMap((run) => run.completed);
  // An agent's run is its child workflow's id, in the scope of the task's run that started it.
  const agentRuns = children.flatMap((child) => task.runChain.map((taskRun) => agentRunIdOf(child, taskRun)));
  const runIds = [...new Set([...task.runChain, ...steps.map((step) => step.runId), ...agentRuns])];
  const logs = new Map(
    await Promise.all(runIds.map(async (runId) => [runId, runId === task.runId ? task.taskLog : await readRunLog(deps.store, runId)] as const)),
  );
  const problems: string[] = [];

  const { rows: usage } = await deps.pool.query<{ step_key: string; total_tokens: number }>(
    'SELECT step_key, total_tokens FROM task_usage WHERE task_id = $1',
    [task.taskId],
  );
  const tokensOf = new Map(usage.map((row) => [row.step_key, row.total_tokens]));
  for (const step of steps) {
    if (!logs.get(step.runId)!.some((record) => record.key === step.key)) problems.push(`${step.what} completed in Temporal but has no record`);
    else if (step.tokens !== undefined && (tokensOf.get(step.key) ?? 0) !== step.tokens)
      problems.push(`${step.what} used ${step.tokens} tokens, the store counts ${tokensOf.get(step.key) ?? 0}`);
  }
  // A record written by an activity still running (or retried) has no completion yet.
  if (closed) {
    const expected = withResetCopies(new Set([...steps.map((step) => step.key), ...runs.flatMap((run) => run.abandoned)]), task.runChain);
    for (const [runId, log] of logs) {
      for (const record of log)
        if (isStepRecord(runId, record.key) && !expected.has(record.key)) problems.push(`record ${record.key} has no completed activity in Temporal's history`);
    }
  }
  // A child cancelled before its first activity never started a run: there is nothing to link.
  for (const taskRun of task.runChain) {
    const taskLog = logs.get(taskRun)!;
    for (const agentRun of children.map((child) => agentRunIdOf(child, taskRun)).filter((id) => logs.get(id)!.length > 0)) {
      if (!taskLog.some((record) => record.key === `${taskRun}/link/${agentRun}`))
        problems.push(`agent run ${agentRun} is not linked to the task's run ${taskRun}`);
    }
  }
  const { rows: running } = await deps.pool.query<{ run_id: string }>(`SELECT run_id FROM task_agents WHERE task_id = $1 AND status = 'RUNNING'`, [
    task.taskId,
  ]);
  for (const { run_id: runId } of running) {
    const child = children.find((id) => task.runChain.some((taskRun) => agentRunIdOf(id, taskRun) === runId));
    if (child && (await deps.temporal.workflow.getHandle(child).describe()).status.name !== 'RUNNING')
      problems.push(`agent run ${runId} is RUNNING in the store, its workflow has closed`);
  }
  return problems;
}
