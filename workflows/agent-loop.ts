import { workflowInfo } from '@temporalio/workflow';
import type { HistoryPolicy } from '../core/llm/history-compression';
import type { ModelTier } from '../core/orchestration/plan';
import type { Budget } from '../core/tasks/run/budget';
import type { ModelStepInput, ModelStepResult, TaskMessage } from '../core/tasks/run/model-step';
import type { ToolCallRequest } from '../core/tasks/run/step-types';
import type { ToolSummary } from '../core/tasks/run/task-lifecycle';
import type { ToolCallInput } from '../core/tasks/run/tool-step';
import type { ToolOutcome } from '../core/tools/tool';
import { outcomeReviewProblem, unknownOutcome } from '../core/tasks/run/outcome-review';
import { modelActivities, storeActivities, toolActivities } from './activity-stubs';
import { approvalRequestOf, type ApprovalRequest, type AwaitApproval } from './approval-gate';
import { startPending, startRecorded } from './run-context';
import { taskRunIdOf, type TaskScope } from './task-scope';
import type { PromptParams } from '../core/tools/tool';
import { isClientToolCall, runClientToolCalls, type ClientToolExchange } from './client-tool-calls';

// The agent loop shared by a single-agent task and each agent of a COMPLEX task: one activity per
// model step, one per tool call, results fed back, until a final answer or max iterations.

const { runModelStep } = modelActivities;
const { runToolCall, resolveToolOutcome } = toolActivities;

const { checkToolArguments } = storeActivities;

export interface AgentLoopState {
  step: number;
  /** Tool calls of the previous step whose results the next step hands back. */
  toolResultsFor: string[];
  tokens: number;
  costUsd: number;
  model: string;
  /** The answer so far when the last step's was cut off at the token limit: the next step goes on with it. */
  cutOffText?: string;
  /** How many steps have gone on with a cut-off answer. */
  continuations?: number;
}

/** How many times a cut-off answer is continued before it is reported as cut off. */
const maxContinuations = 2;

/** The store run an agent loop writes to: the task's own run, or an agent's child run (with its store agent). */
export interface LoopRun {
  runId: string;
  runAgentId?: string;
}

export interface AgentLoopParams {
  task: TaskScope;
  run: LoopRun;
  /** The task's agent, as users see it. */
  agentId: string;
  seed: string;
  system?: string;
  tools: string[];
  dangerousTools: string[];
  tier?: ModelTier;
  maxIterations: number;
  /** Steps to run before handing over to a fresh history (continue-as-new). */
  stepsPerHistory: number;
  history?: HistoryPolicy;
  cacheModelSteps?: boolean;
  /** The model steps' streamed text is kept in the task's event log (TaskSettings.recordPartials). */
  recordPartials?: boolean;
  sandboxMemoryMb?: number;
  promptParams?: PromptParams;
  toolParallelism: number;
  budget: Budget;
  approvalTimeoutMs: number;
  awaitApproval: AwaitApproval;
  onUsage?: (tokens: number, costUsd: number) => void;
  /** A fork's loop: its steps below `belowStep` (0-based) reuse what the run it came from recorded. */
  reuse?: { fromRunId: string; belowStep: number };
  /** Told the tools the task offers, when this loop's first step recorded the task's start (run-context.ts). */
  onToolsOffered?: (tools: ToolSummary[]) => void;
  /** Asked at every step boundary: holds the loop while its task is paused (task-steering.ts); nothing to wait for otherwise. */
  hold?: () => Promise<void> | undefined;
  /** People's messages for the next model step (task-steering.ts). */
  takeMessages?: () => TaskMessage[];
  /** Tools the task's OpenAI client declares and runs (client-tool-calls.ts). */
  clientTools?: ClientToolExchange;
}

export type AgentLoopResult =
  | { kind: 'answered'; text: string; state: AgentLoopState; /** Still cut off at the token limit after the continuations. */ truncated?: boolean }
  | { kind: 'session_ended'; state: AgentLoopState }
  | { kind: 'over_budget'; reason: string; state: AgentLoopState }
  | { kind: 'rejected'; feedback: string; state: AgentLoopState }
  | { kind: 'approval_timeout'; state: AgentLoopState }
  | { kind: 'client_timeout'; tools: string[]; state: AgentLoopState }
  | { kind: 'continue'; state: AgentLoopState };

export const initialLoopState: AgentLoopState = { step: 0, toolResultsFor: [], tokens: 0, costUsd: 0, model: '' };

async function inBatches<T, R>(items: T[], size: number, run: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let i = 0; i < items.length; i += size) results.push(...(await Promise.all(items.slice(i, i + size).map(run))));
  return results;
}

/** What a step of a fork reuses: the recorded run, for the steps before the fork's from-step. */
const reuseFor = (params: AgentLoopParams, step: number) => (params.reuse && step < params.reuse.belowStep ? { reuseFrom: params.reuse.fromRunId } : {});

/** The store run's fields, as every activity of the loop carries them. */
const runFields = (run: LoopRun) => ({ runId: run.runId, ...(run.runAgentId ? { runAgentId: run.runAgentId } : {}) });

function modelStepInput(params: AgentLoopParams, state: AgentLoopState): ModelStepInput {
  return {
    ...runFields(params.run),
    sessionId: params.task.sessionId,
    taskId: params.task.taskId,
    workflowId: params.task.taskWorkflowId,
    agentId: params.agentId,
    step: state.step,
    ...(state.step === 0 ? { seed: params.seed } : {}),
    ...(params.system ? { system: params.system } : {}),
    toolResultsFor: state.toolResultsFor,
    tools: params.tools,
    ...(params.tier ? { tier: params.tier } : {}),
    budget: params.budget,
    ...(params.history ? { history: params.history } : {}),
    ...(params.cacheModelSteps ? { cacheFor: params.task.tenantId } : {}),
    ...reuseFor(params, state.step),
    stepAtMs: Date.now(),
    ...messagesFor(params),
    ...taskToolsOffer(),
    ...(state.cutOffText !== undefined ? { continueCutOff: true } : {}),
    ...(params.recordPartials ? { recordPartials: true } : {}),
    ...(params.clientTools ? { clientTools: params.clientTools.tools } : {}),
  };
}

/** The messages the next step hands the model; none (and no field) when nobody sent one. */
function messagesFor(params: AgentLoopParams): { messages?: TaskMessage[] } {
  const messages = params.takeMessages?.() ?? [];
  return messages.length > 0 ? { messages } : {};
}

/** While the task's start is pending, the step that records it offers the tools the task offers. */
function taskToolsOffer(): Pick<ModelStepInput, 'offersTaskTools'> {
  const start = startPending();
  if (!start) return {};
  return { offersTaskTools: { tenantId: start.tenantId, ...(start.allowedTools ? { allowedTools: start.allowedTools } : {}) } };
}

/** After the step that recorded the task's start: the loop offers the tools the task offers. */
function withOfferedTools(params: AgentLoopParams, step: ModelStepResult): AgentLoopParams {
  startRecorded();
  if (step.kind !== 'reply' || !step.offeredTools) return params;
  params.onToolsOffered?.(step.offeredTools);
  return { ...params, tools: step.offeredTools.map((t) => t.name), dangerousTools: step.offeredTools.filter((t) => t.dangerous).map((t) => t.name) };
}

/** How the Web UI names a model step: "model step 3 of agent researcher, tier MEDIUM". */
const modelStepSummary = (params: AgentLoopParams, step: number) =>
  `model step ${step + 1} of agent ${params.agentId}${params.tier ? `, tier ${params.tier}` : ''}`;

function toolCallInput(params: AgentLoopParams, call: ToolCallRequest): ToolCallInput {
  const { task } = params;
  return {
    ...runFields(params.run),
    sessionId: task.sessionId,
    taskId: task.taskId,
    workflowId: task.taskWorkflowId,
    tenantId: task.tenantId,
    userId: task.userId,
    ...(task.roles ? { roles: task.roles } : {}),
    ...(params.sandboxMemoryMb ? { sandboxMemoryMb: params.sandboxMemoryMb } : {}),
    ...(params.promptParams ? { promptParams: params.promptParams } : {}),
    ...(Object.keys(params.budget).length > 0 ? { budget: params.budget } : {}),
    agentId: params.agentId,
    call,
    atMs: Date.now(),
    ...(task.eval ? { eval: task.eval } : {}),
  };
}

/** A person's decision about one tool call of this agent: whether to run it, or what became of it. */
function toolApproval(params: AgentLoopParams, approvalId: string, proposedAction: unknown, reason: string): ApprovalRequest {
  return approvalRequestOf(params.task, {
    approvalId,
    ...runFields(params.run),
    agentId: params.agentId,
    kind: 'tool',
    proposedAction,
    reason,
    timeoutMs: params.approvalTimeoutMs,
  });
}

/**
 * A tool call's approval: named by the workflow that asks (the run it writes was keyed by it until
 * a reset could give the task another run), so a reset's history matches the decisions it kept.
 */
const approvalIdOf = (call: ToolCallRequest) => `${workflowInfo().workflowId}/tool/${call.id}`;

/**
 * In a reset's run, the task's own loop (not an agent's) keeps the run's place up to date: the
 * handover copies what it names from the earlier run (task-scope.ts, ResetProgress).
 */
function noteProgress(params: AgentLoopParams, state: AgentLoopState, toolCallsDone: string[]): void {
  const { reset } = params.task;
  if (!reset || params.run.runId !== taskRunIdOf(params.task)) return;
  reset.belowStep = state.step;
  reset.toolCalls = toolCallsDone;
}

type Approved = { kind: 'approved'; calls: ToolCallRequest[] } | Extract<AgentLoopResult, { kind: 'rejected' | 'approval_timeout' }>;

/**
 * The step's tool calls that may run: dangerous ones wait for a person (an admin's own task asks
 * nobody, a fork's reused step runs no tool, and an eval never runs a dangerous tool).
 */
async function approvedCalls(params: AgentLoopParams, requested: ToolCallRequest[], state: AgentLoopState): Promise<Approved> {
  const { task } = params;
  const calls: ToolCallRequest[] = [];
  const reused = 'reuseFrom' in reuseFor(params, state.step - 1);
  for (const call of requested) {
    if (!params.dangerousTools.includes(call.name) || task.roles?.includes('admin') || reused || task.eval !== undefined) {
      calls.push(call);
      continue;
    }
    const decision = await params.awaitApproval(
      toolApproval(params, approvalIdOf(call), { tool: call.name, arguments: call.arguments }, `${call.name} is a dangerous tool`),
      async (modified) => {
        const check = await checkToolArguments({ tool: call.name, argumentsText: modified });
        return check.ok ? undefined : check.error;
      },
    );
    if (decision.outcome === 'timeout') return { kind: 'approval_timeout', state };
    if (decision.outcome === 'rejected') return { kind: 'rejected', feedback: decision.feedback, state };
    calls.push(decision.modifiedAction ? { ...call, arguments: JSON.parse(decision.modifiedAction) as Record<string, unknown> } : call);
  }
  return { kind: 'approved', calls };
}

const isUnknown = (outcome: ToolOutcome) => !outcome.ok && outcome.error.category === 'outcome_unknown';

/**
 * A call interrupted after it may have taken effect asks a person what happened: approve (it did),
 * reject (it did not), or approve with {"run_again": true}. The answer is recorded as the call's
 * result; without an answer before the deadline, the agent goes on with the outcome unknown.
 */
async function reviewUnknownOutcome(params: AgentLoopParams, call: ToolCallRequest): Promise<void> {
  let runAgain = false;
  const decision = await params.awaitApproval(
    toolApproval(
      params,
      `${approvalIdOf(call)}/outcome`,
      {
        tool: call.name,
        arguments: call.arguments,
        outcome: unknownOutcome,
        resolve: 'approve: it took effect; reject: it did not; approve with modified_action {"run_again": true}: run it again',
      },
      `${call.name} was interrupted after its request may have been sent: did it take effect?`,
    ),
    async (modified) => {
      const problem = outcomeReviewProblem(modified);
      if (problem === undefined) runAgain = true;
      return problem;
    },
  );
  if (decision.outcome === 'timeout') return;
  const resolution = decision.outcome === 'rejected' ? 'failed' : runAgain ? 'run_again' : 'done';
  await resolveToolOutcome({
    ...toolCallInput(params, call),
    resolution,
    decidedBy: decision.decidedBy,
    feedback: decision.outcome === 'rejected' ? decision.feedback : '',
  });
}

export async function runAgentLoop(given: AgentLoopParams, from: AgentLoopState): Promise<AgentLoopResult> {
  let params = given;
  const state = { ...from, toolResultsFor: [...from.toolResultsFor] };
  let stepsHere = 0;
  for (;;) {
    // Before the hand-over too: a paused loop keeps its pause in this history. Not paused (nearly
    // always), there is nothing to wait for, and no promise is made.
    const held = params.hold?.();
    if (held) await held;
    if (stepsHere >= params.stepsPerHistory) return { kind: 'continue', state };
    noteProgress(params, state, state.toolResultsFor);
    const step = await runModelStep.executeWithOptions({ summary: modelStepSummary(params, state.step) }, [modelStepInput(params, state)]);
    if (startPending()) params = withOfferedTools(params, step);
    if (step.kind === 'session_ended') return { kind: 'session_ended', state };
    if (step.kind === 'over_budget') return { kind: 'over_budget', reason: step.reason, state };
    state.step += 1;
    stepsHere += 1;
    state.tokens += step.usage.totalTokens;
    state.costUsd += step.costUsd;
    state.model = step.model;
    noteProgress(params, state, []);
    params.onUsage?.(step.usage.totalTokens, step.costUsd);
    if (step.overBudget) return { kind: 'over_budget', reason: step.overBudget, state };
    if (step.toolCalls.length === 0) {
      const text = (state.cutOffText ?? '') + step.text;
      const cutOff = step.finishReason === 'length';
      if (!cutOff || (state.continuations ?? 0) >= maxContinuations || state.step >= params.maxIterations) {
        return { kind: 'answered', text, state, ...(cutOff ? { truncated: true } : {}) };
      }
      state.cutOffText = text;
      state.continuations = (state.continuations ?? 0) + 1;
      state.toolResultsFor = [];
      continue;
    }
    delete state.cutOffText;
    if (state.step >= params.maxIterations) {
      return { kind: 'answered', text: step.text || `stopped after ${params.maxIterations} iterations without a final answer`, state };
    }
    const approved = await approvedCalls(params, step.toolCalls, state);
    if (approved.kind !== 'approved') return approved;
    const heldBeforeTools = params.hold?.();
    if (heldBeforeTools) await heldBeforeTools;
    const reuse = reuseFor(params, state.step - 1);
    const done: string[] = [];
    // An eval's client calls are answered from the record, as Weft's own are: no client is waiting for them.
    const forClient = params.task.eval ? [] : approved.calls.filter((call) => isClientToolCall(params.clientTools, call));
    const ours = approved.calls.filter((call) => !forClient.includes(call));
    const outcomes = await inBatches(ours, params.toolParallelism, async (call) => {
      const outcome = await runToolCall.executeWithOptions({ summary: `tool ${call.name} (${call.id}) of agent ${params.agentId}` }, [
        { ...toolCallInput(params, call), ...reuse },
      ]);
      done.push(call.id);
      noteProgress(params, state, [...done]);
      return outcome;
    });
    const unknown = ours.filter((_call, i) => isUnknown(outcomes[i]!));
    if (unknown.length > 0) {
      for (const call of unknown) await reviewUnknownOutcome(params, call);
    }
    if (forClient.length > 0 && !(await runClientToolCalls(params.clientTools!, forClient, (call) => toolCallInput(params, call), params.approvalTimeoutMs))) {
      return { kind: 'client_timeout', tools: forClient.map((call) => call.name), state };
    }
    state.toolResultsFor = approved.calls.map((call) => call.id);
  }
}
