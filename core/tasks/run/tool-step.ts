import { createHash } from 'node:crypto';
import { appendTaskEvent } from '../../events/event-log';
import { EventType } from '../../events/event-types';
import type { ToolOutcome } from '../../tools/tool';
import { recordStepUsage } from '../task-usage';
import { recordedToolOutcome } from './forked-steps';
import { recordedCallOutcome, unrecordedOutcome, type TaskEval } from './eval-tools';
import type { ToolCallRequest } from './step-types';
import {
  decodeToolResolution,
  decodeToolResult,
  decodeToolStarted,
  recordOwnerOf,
  toolResolutionKey,
  toolResolutionRecord,
  toolResultKey,
  toolResultRecord,
  toolStartedKey,
  toolStartedRecord,
  type RecordOwner,
  type ToolResolution,
} from './run-records';
import { taskEvent } from './task-events';
import { sessionHasEnded } from './session-state';
import type { RunRef, TaskRef } from './task-ref';
import type { StepContext, TaskWriteDeps } from './task-write-deps';
import type { PromptParams } from '../../tools/tool';
import { hasBudget, reserveStep, settleReservations } from './budget-reservations';
import type { Budget } from './budget';

export interface ToolCallInput extends Omit<TaskRef, 'userId'> {
  /** The caller whose task this is (absent in tasks started before it was passed on). */
  userId?: string;
  /** The task's workflow: its event stream. */
  workflowId: string;
  /** A lower memory cap for this task's sandboxed programs. */
  sandboxMemoryMb?: number;
  /** The task's context.prompt_params, for vendor adapters. */
  promptParams?: PromptParams;
  /** The budgets a priced tool's call reserves its cost under (absent: none). */
  budget?: Budget;
  /** The run the call belongs to: the task's own run, or an agent's child run. */
  runId: string;
  /** The store's agent of that run; the task's own run when absent. */
  runAgentId?: string;
  /** The task's agent that made the call. */
  agentId: string;
  call: ToolCallRequest;
  atMs: number;
  /** A fork's call before its from-step: the predecessor run whose recorded outcome it copies. */
  reuseFrom?: string;
  /** Set in an eval's task: the call is answered from the recorded task's calls (eval-tools.ts). */
  eval?: TaskEval;
}

// JSON.stringify gives undefined for undefined (a tool that returns nothing).
export interface ToolOutcomeResolutionInput extends ToolCallInput {
  resolution: ToolResolution;
  decidedBy: string;
  feedback: string;
}

const asText = (value: unknown) => (typeof value === 'string' ? value : (JSON.stringify(value) ?? ''));

const summary = (value: unknown) => {
  const text = asText(value);
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
};

/** Outputs up to this size travel whole in the event (AgentService reports them); larger ones as a summary. */
const maxEventOutputChars = 64 * 1024;

function observation(outcome: ToolOutcome, durationMs: number): Record<string, unknown> {
  if (!outcome.ok) return { ok: false, error: outcome.error, duration_ms: durationMs };
  const whole = asText(outcome.content).length <= maxEventOutputChars;
  return { ok: true, output: whole ? outcome.content : summary(outcome.content), output_truncated: !whole, duration_ms: durationMs };
}

const noTokens = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };

/** What an interrupted at-most-once call left: it may have happened, and it was not run again. */
const unknownOutcome = (name: string): ToolOutcome => ({
  ok: false,
  error: {
    category: 'outcome_unknown',
    message: `${name} was interrupted after its request may have been sent; it was not run again, and whether it took effect is unknown`,
  },
});

/** Stable across every attempt of one call, and unique to it. */
const idempotencyKeyOf = (run: RunRef, toolCallId: string) => `weft-${createHash('sha256').update(`${run.runId}\n${toolCallId}`).digest('hex').slice(0, 40)}`;

/**
 * The outcome as the call's record, with its event and its cost, in one transaction. An outcome
 * copied from a recorded run (`reusedFrom`: a fork's predecessor, an eval's recorded task) costs
 * nothing: the tool did not run.
 */
export async function recordOutcome(
  { store, tools }: TaskWriteDeps,
  input: ToolCallInput,
  owner: RecordOwner,
  outcome: ToolOutcome,
  durationMs: number,
  reusedFrom?: string,
): Promise<ToolOutcome> {
  const reused = reusedFrom !== undefined;
  const at = new Date(input.atMs);
  const { name } = input.call;
  const record = toolResultRecord(owner, input.call, at, outcome);
  // A tool's price per use counts against the task's cost limit, like tokens do; only a call that
  // succeeded is charged.
  const costUsd = outcome.ok && !reused ? (tools.get(name)?.costPerUse ?? 0) : 0;
  const said = outcome.ok ? summary(outcome.content) : `${outcome.error.category} error: ${outcome.error.message}`;
  await store.appendRunRecord(record, async (tx) => {
    // A reservation for the call (a priced tool under a budget) ends with its outcome.
    if (hasBudget(input.budget)) await settleReservations(tx, input.taskId, at, record.key);
    await appendTaskEvent(
      tx,
      taskEvent(input.workflowId, `tool/${input.runId}/${input.call.id}/observed`, EventType.ToolObservation, at, {
        agentId: input.agentId,
        message: reused ? `reused from ${reusedFrom}: ${said}` : said,
        payload: {
          tool: name,
          tool_call_id: input.call.id,
          ...observation(outcome, durationMs),
          cost_usd: costUsd,
          ...(reused ? { reused_from: reusedFrom } : {}),
        },
      }),
    );
    if (costUsd > 0) {
      await recordStepUsage(tx, { taskId: input.taskId, stepKey: record.key, agentId: input.agentId, model: `tool:${name}`, ...noTokens, costUsd, at });
    }
  });
  return outcome;
}

/**
 * The outcome a call has without running the tool: stored by an earlier attempt, copied from the
 * run a fork came from, or refused because the session has ended (as a model step is).
 */
async function outcomeWithoutRunning(deps: TaskWriteDeps, input: ToolCallInput, owner: RecordOwner): Promise<ToolOutcome | undefined> {
  const stored = await deps.store.findRunRecord(input.runId, toolResultKey(owner, input.call.id));
  if (stored) return decodeToolResult(stored);
  const recorded = input.reuseFrom && (await recordedToolOutcome(deps.store, input.reuseFrom, owner, input.call.id));
  if (recorded) return recordOutcome(deps, input, owner, recorded, 0, input.reuseFrom);
  const answered = input.eval && (await evalOutcome(deps, input, input.eval, owner));
  if (answered) return answered;
  if (await sessionHasEnded(deps.store, input.sessionId)) {
    return recordOutcome(deps, input, owner, { ok: false, error: { category: 'validation', message: `not run: session ${input.sessionId} has ended` } }, 0);
  }
  const refused = await reserveToolCost(deps, input, owner);
  if (refused) return recordOutcome(deps, input, owner, { ok: false, error: { category: 'validation', message: `not run: ${refused}` } }, 0);
  return undefined;
}

/**
 * An eval's call: the recorded task's outcome of the same call, else what the eval's policy gives
 * a call the record lacks; undefined only for an idempotent tool the policy lets run (which then
 * runs as any call does: its session checked, its cost reserved).
 */
async function evalOutcome(deps: TaskWriteDeps, input: ToolCallInput, evaluation: TaskEval, owner: RecordOwner): Promise<ToolOutcome | undefined> {
  const recorded = await recordedCallOutcome(deps.pool, deps.store, evaluation.fromTaskId, owner, input.call);
  if (recorded) return recordOutcome(deps, input, owner, recorded, 0, evaluation.fromTaskId);
  const tool = deps.tools.get(input.call.name, input.tenantId);
  const refused = unrecordedOutcome(evaluation.tools, input.call, { idempotency: tool?.idempotency ?? 'idempotent', dangerous: tool?.dangerous ?? false });
  return refused && recordOutcome(deps, input, owner, refused, 0);
}

/** A priced tool's call reserves its cost under the task's budgets, as a model step reserves its prompt. */
async function reserveToolCost(deps: TaskWriteDeps, input: ToolCallInput, owner: RecordOwner): Promise<string | undefined> {
  const costUsd = deps.tools.get(input.call.name)?.costPerUse ?? 0;
  if (costUsd <= 0 || !hasBudget(input.budget)) return undefined;
  return reserveStep(
    deps.pool,
    { taskId: input.taskId, agentId: input.agentId, stepKey: toolResultKey(owner, input.call.id), tokens: 0, costUsd, at: new Date(input.atMs) },
    input.budget,
  );
}

/**
 * One tool call of an agent: announced, run, and its outcome stored with its event and its cost.
 * The tool's idempotency class decides what a retry may do (tool.ts).
 */
export function toolSteps(deps: TaskWriteDeps) {
  const { store, pool, tools } = deps;
  /**
   * Idempotent by its tool-call id: the outcome is stored in the run log under that id, and a retry
   * after it was stored returns it without running the tool again.
   */
  async function runToolCall(input: ToolCallInput, step: StepContext): Promise<ToolOutcome> {
    const owner = recordOwnerOf(input);
    const at = new Date(input.atMs);
    const settled = await outcomeWithoutRunning(deps, input, owner);
    if (settled) return settled;

    const { name, arguments: args } = input.call;
    const idempotency = tools.get(name)?.idempotency ?? 'idempotent';
    const eventKey = `tool/${input.runId}/${input.call.id}`;
    if (idempotency === 'at_most_once') {
      const started = await store.findRunRecord(input.runId, toolStartedKey(owner, input.call.id));
      // An earlier attempt may have sent the request and died before its answer was stored.
      if (started) return recordOutcome(deps, input, owner, unknownOutcome(decodeToolStarted(started).name), 0);
      await store.appendRunRecord(toolStartedRecord(owner, input.call, at));
    }
    // An event that describes no store write of its own: one statement, atomic without a transaction.
    await appendTaskEvent(
      pool,
      taskEvent(input.workflowId, `${eventKey}/invoked`, EventType.ToolInvoked, at, {
        agentId: input.agentId,
        message: `calling ${name}`,
        payload: { tool: name, tool_call_id: input.call.id, arguments: args, idempotency },
      }),
    );
    const startedAt = performance.now();
    const outcome = await step.keepAlive(() =>
      tools.execute(name, args, {
        tenantId: input.tenantId,
        userId: input.userId ?? '',
        roles: input.roles ?? [],
        ...(input.sandboxMemoryMb ? { memoryLimitMb: input.sandboxMemoryMb } : {}),
        ...(input.promptParams ? { promptParams: input.promptParams } : {}),
        sessionId: input.sessionId,
        taskId: input.taskId,
        ...(idempotency === 'keyed' ? { idempotencyKey: idempotencyKeyOf(owner, input.call.id) } : {}),
        ...(step.signal ? { signal: step.signal } : {}),
      }),
    );
    return recordOutcome(deps, input, owner, outcome, Math.round(performance.now() - startedAt));
  }

  /**
   * A person's resolution of a call whose outcome was unknown: marked done or failed, or run again
   * as a new attempt (its own started marker and result). Stored once; the model is given it in
   * place of the unknown outcome.
   */
  async function resolveToolOutcome(input: ToolOutcomeResolutionInput, step: StepContext): Promise<ToolOutcome> {
    const owner = recordOwnerOf(input);
    const stored = await store.findRunRecord(input.runId, toolResolutionKey(owner, input.call.id));
    if (stored) return decodeToolResolution(stored);
    const who = input.decidedBy || 'an approver';
    const outcome: ToolOutcome =
      input.resolution === 'run_again'
        ? await runToolCall({ ...input, call: { ...input.call, id: `${input.call.id}.again` } }, step)
        : input.resolution === 'done'
          ? { ok: true, content: { resolution: `marked done by ${who}`, ...(input.feedback ? { note: input.feedback } : {}) } }
          : { ok: false, error: { category: 'execution', message: `marked failed by ${who}${input.feedback ? `: ${input.feedback}` : ''}` } };
    const at = new Date(input.atMs);
    await store.appendRunRecord(toolResolutionRecord(owner, input.call, at, { resolution: input.resolution, decidedBy: input.decidedBy, outcome }), (tx) =>
      appendTaskEvent(
        tx,
        taskEvent(input.workflowId, `tool/${input.runId}/${input.call.id}/resolved`, EventType.ToolObservation, at, {
          agentId: input.agentId,
          message: `${input.call.name}: ${input.resolution.replace('_', ' ')} (decided by ${who})`,
          payload: { tool: input.call.name, tool_call_id: input.call.id, resolution: input.resolution, ...observation(outcome, 0) },
        }),
      ),
    );
    return outcome;
  }

  return { runToolCall, resolveToolOutcome };
}
