import { offeredTools, type StartTaskInput, type ToolSummary } from './task-lifecycle';
import type { Pool } from 'pg';
import { commitWith, type Queryable } from '../../db/transaction';
import type { TokenCounts } from '../../llm/chat-model';
import { compressHistory, type HistoryPolicy } from '../../llm/history-compression';
import { findModel, firstChoice } from '../../llm/model-catalog';
import { countMessageTokens } from '../../llm/tokenizer';
import { costOf } from '../../llm/pricing';
import type { ModelTier } from '../../orchestration/plan';
import { listTaskSessionHistory } from '../../sessions/history';
import type { RecordInput, RuntimeStore, StoredRecord } from '../../store';
import { decodeTranscriptRecord, runTranscripts, textOf, userText, type Message, type Part } from '../../transcript';
import { appendTaskEvent } from '../../events/event-log';
import { EventType } from '../../events/event-types';
import { recordStepUsage } from '../task-usage';
import { recordedStep } from './forked-steps';
import { overBudgetNow, type Budget } from './budget';
import {
  decodeToolResolution,
  decodeToolResult,
  recordOwnerOf,
  seedRecord,
  stepCompactionRecord,
  stepReplyKey,
  stepReplyRecord,
  toolResolutionKey,
  toolResultKey,
  toolResultsRecord,
} from './run-records';
import { stepCompletion } from './step-completion';
import type { ClientTool, ToolCallRequest } from './step-types';
import { taskEvent } from './task-events';
import type { StepContext, TaskWriteDeps } from './task-write-deps';
import { sessionHasEnded } from './session-state';
import { isMainAgentStep, mainAgentStart, recordMainAgentStep } from './main-agent';
import { recordCommonStep } from './step-record';
import { hasBudget, reserveStep, settleReservations } from './budget-reservations';
import type { RunRef } from './task-ref';

export interface ModelStepInput {
  taskId: string;
  /** The task's workflow, whose live readers get the step's text as it streams. */
  workflowId?: string;
  /** The tenant whose response cache may answer the step (the task asked for caching). */
  cacheFor?: string;
  /** The run whose transcript this step extends: the task's own run, or an agent's child run. */
  runId: string;
  /** The store's agent of that run; the task's own run when absent. */
  runAgentId?: string;
  sessionId: string;
  /** The task's agent that spends the tokens ('main' for a single-agent task). */
  agentId: string;
  step: number;
  /** User text that seeds the transcript on step 0. */
  seed?: string;
  system?: string;
  /** Tool calls of the previous step whose results go back to the model now. */
  toolResultsFor?: string[];
  /** The tools offered (with `offersTaskTools`, those the task offers). */
  tools?: string[];
  /**
   * Set on the task's first step while the workflow does not know the task's tools yet (the step
   * records the task's start, run-context.ts): the step offers the tools the task offers, and returns them.
   */
  offersTaskTools?: Pick<StartTaskInput, 'tenantId' | 'allowedTools'>;
  tier?: ModelTier;
  budget?: Budget;
  /** When the transcript is compressed before the call. */
  history?: HistoryPolicy;
  /** Workflow time of the step, epoch milliseconds: the timestamp of its records. */
  stepAtMs: number;
  /** A fork's step before its from-step: the predecessor run whose recorded step it copies. */
  reuseFrom?: string;
  /** What people sent the running task since its previous step: user text the model gets with this step. */
  messages?: TaskMessage[];
  /** The previous step's answer was cut off at the model's token limit: this step asks the model to go on with it. */
  continueCutOff?: boolean;
  /** The step's text as it streams is kept in the task's event log (TaskSettings.recordPartials). */
  recordPartials?: boolean;
  /** Tools the task's OpenAI client declares and runs itself (client-tools.ts), offered beside Weft's. */
  clientTools?: ClientTool[];
}

/** What a step that goes on with a cut-off answer tells the model. */
export const continueCutOffText = 'Your answer was cut off at the token limit. Continue it exactly where it stopped, without repeating anything.';

/** A person's message to a running task (Shannon's swarm message). */
export interface TaskMessage {
  /** Unique per task: a message sent twice with the same id is delivered once. */
  id: string;
  text: string;
  from: string;
}

const messageParts = (messages: TaskMessage[] = []): Part[] =>
  messages.map((m) => ({ kind: 'text', text: `Message from ${m.from} while you work: ${m.text}` }));

export type ModelStepResult =
  | { kind: 'session_ended' }
  | { kind: 'over_budget'; reason: string }
  | {
      kind: 'reply';
      text: string;
      toolCalls: ToolCallRequest[];
      model: string;
      usage: TokenCounts;
      costUsd: number;
      /** Set when this step's usage crossed a budget: no further step may run. */
      overBudget?: string;
      /** Set with `offersTaskTools`: the tools the task's agent is offered. */
      offeredTools?: ToolSummary[];
      /** Why the model stopped: 'length' when its answer was cut off at the token limit (absent in histories from before it was returned). */
      finishReason?: string;
    };

const noUsage: TokenCounts = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };

function replyOf(message: Message, model: string, usage: TokenCounts, costUsd: number, finishReason: string | undefined) {
  const toolCalls = message.parts.flatMap((part) =>
    part.kind === 'tool_use' ? [{ id: part.id, name: part.name, arguments: (part.input ?? {}) as Record<string, unknown> }] : [],
  );
  return { kind: 'reply' as const, text: textOf(message), toolCalls, model, usage, costUsd, ...(finishReason ? { finishReason } : {}) };
}

/**
 * The session's conversation before this task, as the task run's transcript starts: the user's
 * and the assistant's turns (agents of a COMPLEX task start from their own subtask).
 */
async function conversationSoFar(pool: Pool, input: ModelStepInput): Promise<Message[]> {
  if (!input.sessionId || input.runAgentId) return [];
  const history = await listTaskSessionHistory(pool, input.taskId);
  return history.flatMap((m): Message[] => (m.role === 'system' || m.content === '' ? [] : [{ role: m.role, parts: [{ kind: 'text', text: m.content }] }]));
}

/** The outcome the model is given for a tool call: a person's resolution of an unknown outcome stands in for the call's result. */
async function toolResultPart(store: RuntimeStore, owner: RunRef, id: string): Promise<Part> {
  const [resolution, result] = await Promise.all([
    store.findRunRecord(owner.runId, toolResolutionKey(owner, id)),
    store.findRunRecord(owner.runId, toolResultKey(owner, id)),
  ]);
  if (!result) throw new Error(`tool call ${id} has no stored result`);
  const outcome = resolution ? decodeToolResolution(resolution) : decodeToolResult(result);
  // A tool that returned nothing hands back null: a result always has content.
  return { kind: 'tool_result', toolUseId: id, content: outcome.ok ? (outcome.content ?? null) : outcome.error, ...(outcome.ok ? {} : { isError: true }) };
}

/** What this step adds before the model's reply: the seed on step 0, the previous step's tool results after a tool step. */
async function recordsBeforeReply({ pool, store }: TaskWriteDeps, input: ModelStepInput): Promise<RecordInput[]> {
  const owner = recordOwnerOf(input);
  const at = new Date(input.stepAtMs);
  const added: RecordInput[] = [];
  // People's messages, and the request to go on with a cut-off answer, join the user turn this step adds.
  const sent = [...messageParts(input.messages), ...(input.continueCutOff ? [{ kind: 'text' as const, text: continueCutOffText }] : [])];
  if (input.step === 0 && input.seed !== undefined) {
    const seed = userText(input.seed);
    added.push(seedRecord(owner, at, { messages: [...(await conversationSoFar(pool, input)), { ...seed, parts: [...seed.parts, ...sent] }] }));
  } else if ((input.toolResultsFor && input.toolResultsFor.length > 0) || sent.length > 0) {
    const parts = await Promise.all((input.toolResultsFor ?? []).map((id) => toolResultPart(store, owner, id)));
    added.push(toolResultsRecord(owner, input.step, at, { messages: [{ role: 'user', parts: [...parts, ...sent] }] }));
  }
  return added;
}

/** A reply stored by an earlier attempt of this step: returned as it was, the model is not called again. */
async function storedReply({ pool, gateway }: TaskWriteDeps, input: ModelStepInput, stored: StoredRecord): Promise<ModelStepResult> {
  const reply = decodeTranscriptRecord(stored);
  const usage = reply.usage ?? noUsage;
  const model = reply.model ?? '';
  const crossed = await overBudgetNow(pool, input.taskId, input.agentId, input.budget);
  return {
    ...replyOf(reply.messages[0]!, model, usage, costOf(findModel(gateway.catalog, model), usage), reply.finishReason),
    ...(crossed ? { overBudget: crossed } : {}),
  };
}

/** A fork's step before its from-step: the predecessor's step copied into this run, with nothing called or spent. */
async function reusedStep({ store }: TaskWriteDeps, input: ModelStepInput, copied: RecordInput[]): Promise<ModelStepResult> {
  const at = new Date(input.stepAtMs);
  await store.appendRunRecords(copied, async (tx) => {
    if (!input.workflowId) return;
    const message = `step ${input.step + 1} reused from ${input.reuseFrom}`;
    await appendTaskEvent(
      tx,
      taskEvent(input.workflowId, `step/${input.runId}/${input.step}/reused`, EventType.StatusUpdate, at, { agentId: input.agentId, message }),
    );
  });
  const reply = decodeTranscriptRecord(copied.at(-1)!);
  return replyOf(reply.messages[0]!, reply.model ?? '', noUsage, 0, reply.finishReason);
}

/**
 * Under a budget, the step reserves its prompt (counted, and priced at its tier's first model)
 * before the call; why not, when a budget cannot take it. No budget: nothing is read or written.
 */
async function reserveModelStep(deps: TaskWriteDeps, input: ModelStepInput, owner: RunRef, messages: Message[], at: Date): Promise<string | undefined> {
  if (!hasBudget(input.budget)) return undefined;
  const tokens = countMessageTokens(messages, 'o200k_base', input.system);
  const costUsd = costOf(firstChoice(deps.gateway.catalog, input.tier ?? 'MEDIUM'), { promptTokens: tokens, completionTokens: 0, totalTokens: tokens });
  return reserveStep(deps.pool, { taskId: input.taskId, agentId: input.agentId, stepKey: stepReplyKey(owner, input.step), tokens, costUsd, at }, input.budget);
}

/** What compressing the history before a step cost, counted for the step's agent. */
function recordCompactionUsage(
  tx: Queryable,
  input: ModelStepInput,
  stepKey: string,
  compression: { record: { model: string; usage: TokenCounts }; costUsd: number },
  at: Date,
) {
  return recordStepUsage(tx, {
    taskId: input.taskId,
    stepKey,
    agentId: input.agentId,
    model: compression.record.model,
    ...compression.record.usage,
    costUsd: compression.costUsd,
    at,
  });
}

/** One model step of an agent: the transcript from the run log, one model call, the reply stored with its usage. */
export function modelSteps(deps: TaskWriteDeps) {
  const { store, pool, gateway, tools } = deps;
  const transcripts = runTranscripts(store);

  /** A step that offers the task's tools (its first, which records the start) returns them. */
  async function runModelStep(input: ModelStepInput, step: StepContext): Promise<ModelStepResult> {
    if (!input.offersTaskTools) return modelStep(input, step);
    const offered = offeredTools(tools, input.offersTaskTools);
    const result = await modelStep({ ...input, tools: offered.map((tool) => tool.name) }, step);
    return result.kind === 'reply' ? { ...result, offeredTools: offered } : result;
  }

  /**
   * One LLM call. The transcript comes from the run log and the reply is appended to it, with its
   * usage, under a key fixed by the step: a retried step whose reply is stored returns that reply
   * and never calls the model twice. One read and one transaction per step.
   */
  async function modelStep(input: ModelStepInput, step: StepContext): Promise<ModelStepResult> {
    const owner = recordOwnerOf(input);
    const at = new Date(input.stepAtMs);
    // Read together: only this task's own steps write its run, one after another, so the
    // transcript read here is the one the call needs (and a retry whose reply is stored wastes it).
    // A run this attempt has just started holds neither.
    const [stored, transcript] = step.startRecordedNow
      ? [undefined, []]
      : await Promise.all([store.findRunRecord(input.runId, stepReplyKey(owner, input.step)), transcripts.messagesOf(input.runId)]);
    if (stored) return storedReply(deps, input, stored);
    const copied = input.reuseFrom && (await recordedStep(store, input.reuseFrom, owner, input.step, at));
    if (copied) return reusedStep(deps, input, copied);
    // An ended session refuses new planner work; the workflow then records the cancellation.
    if (await sessionHasEnded(store, input.sessionId)) return { kind: 'session_ended' };
    const already = await overBudgetNow(pool, input.taskId, input.agentId, input.budget);
    if (already) return { kind: 'over_budget', reason: already };

    // Stored together with the reply, in one transaction.
    const added = await recordsBeforeReply(deps, input);
    const tier = input.tier ?? 'MEDIUM';
    const system = input.system ? { system: input.system } : {};
    let messages = [...transcript, ...added.flatMap((record) => decodeTranscriptRecord(record).messages)];
    const compression = input.history
      ? await step.keepAlive(() =>
          compressHistory(gateway, { messages, tier, policy: input.history!, ...(step.signal ? { signal: step.signal } : {}), ...system }),
        )
      : undefined;
    const compaction = compression && stepCompactionRecord(owner, input.step, at, compression.record);
    if (compaction) {
      added.push(compaction);
      messages = compression.messages;
    }

    const refused = await reserveModelStep(deps, input, owner, messages, at);
    if (refused) return { kind: 'over_budget', reason: refused };

    const offered = [...(input.tools ?? []).flatMap((name) => tools.get(name) ?? []), ...(input.clientTools ?? [])];
    const request = { tier, messages, ...system, tools: offered, ...(step.signal ? { signal: step.signal } : {}) };
    const { completion, cacheHit, remember, finishStream, restOfStream } = await stepCompletion(deps, input, request, step);
    const { costUsd } = completion;
    const reply = stepReplyRecord(owner, input.step, at, {
      messages: [completion.message],
      model: completion.model,
      finishReason: completion.finishReason,
      usage: completion.usage,
    });
    const records = [...added, reply];
    const usage = { taskId: input.taskId, stepKey: reply.key, agentId: input.agentId, model: completion.model, ...completion.usage, costUsd, cacheHit, at };
    const mainAgent = input.workflowId && isMainAgentStep(input) ? { taskId: input.taskId, runId: input.runId, workflowId: input.workflowId } : undefined;
    // The common step of a task's single agent (no compaction, budget or cache to write) in one
    // statement; any other, or one the statement finds unusual, in the step's transaction.
    const rest = !compaction && !hasBudget(input.budget) && !input.cacheFor && mainAgent ? restOfStream() : undefined;
    const recordedAtOnce =
      rest !== undefined &&
      mainAgent !== undefined &&
      (await recordCommonStep(pool, { records, usage, agent: mainAgentStart(mainAgent, at), restOfStream: rest }));
    if (!recordedAtOnce)
      await store.appendRunRecords(records, (tx) =>
        // Sent together (pipelined), run in the order called, with the COMMIT right behind them.
        commitWith(
          tx,
          Promise.all([
            compaction && recordCompactionUsage(tx, input, compaction.key, compression, at),
            recordStepUsage(tx, usage),
            // What the step reserved counts no more: its usage does.
            hasBudget(input.budget) && settleReservations(tx, input.taskId, at, reply.key),
            mainAgent && recordMainAgentStep(tx, mainAgent, at),
            remember(tx),
            finishStream(tx),
          ]),
        ),
      );
    if (cacheHit) deps.observer?.stepFromCache(completion.model);
    const crossed = await overBudgetNow(pool, input.taskId, input.agentId, input.budget);
    return {
      ...replyOf(completion.message, completion.model, completion.usage, costUsd, completion.finishReason),
      ...(crossed ? { overBudget: crossed } : {}),
    };
  }

  return { runModelStep };
}
