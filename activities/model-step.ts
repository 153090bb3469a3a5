import { Context } from '@temporalio/activity';
import type { TokenCounts } from '../core/llm/chat-model';
import { compressHistory, type HistoryPolicy } from '../core/llm/history-compression';
import { findModel } from '../core/llm/model-catalog';
import { costOf } from '../core/llm/pricing';
import type { ModelTier } from '../core/orchestration/plan';
import { listHistory } from '../core/sessions/history';
import { recordStepUsage, spendOf } from '../core/tasks/task-usage';
import type { ToolOutcome } from '../core/tools/tool';
import type { RecordInput } from '../core/store';
import { decodeTranscriptRecord, readRunLog, replayRunLogRecords, textOf, userText, type Message, type Part } from '../core/transcript';
import type { ActivityDeps } from './deps';
import { failPermanentErrorsFast } from './failures';
import { stepCompletion } from './step-completion';
import { whileHeartbeating } from './heartbeat';
import { ownerOf, seedRecord, stepCompactionRecord, stepReplyKey, stepReplyRecord, toolResultKey, toolResultsRecord } from './task-records';

export interface Budget {
  taskTokens?: number;
  agentTokens?: number;
  taskCostUsd?: number;
}

export interface ModelStepInput {
  taskId: string;
  /** The task's workflow, whose live readers get the step's text as it streams. */
  workflowId?: string;
  /** The tenant whose response cache may answer the step (the task asked for caching). */
  cacheFor?: string;
  /** The run whose transcript this step extends: the task run, or an agent's child run. */
  runId: string;
  runAgentId?: string;
  sessionId: string;
  /** The agent, in the task's terms, that spends the tokens ('main' for a single-agent task). */
  agentId: string;
  step: number;
  /** User text that seeds the transcript on step 0. */
  seed?: string;
  system?: string;
  /** Tool calls of the previous step whose results go back to the model now. */
  toolResultsFor?: string[];
  tools?: string[];
  tier?: ModelTier;
  budget?: Budget;
  /** When the transcript is compressed before the call. */
  history?: HistoryPolicy;
  /** Workflow time of the step, epoch milliseconds: the timestamp of its records. */
  stepAtMs: number;
}

export interface ToolCallRequest {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

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
    };

function overBudget(budget: Budget, task: { tokens: number; costUsd: number }, agent: { tokens: number }): string | undefined {
  if (budget.taskTokens && task.tokens > budget.taskTokens) return `task used ${task.tokens} tokens of its ${budget.taskTokens} token budget`;
  if (budget.agentTokens && agent.tokens > budget.agentTokens) return `agent used ${agent.tokens} tokens of its ${budget.agentTokens} token budget`;
  if (budget.taskCostUsd && task.costUsd > budget.taskCostUsd) {
    return `task cost $${task.costUsd.toFixed(4)} of its $${budget.taskCostUsd} cost limit`;
  }
  return undefined;
}

function replyOf(message: Message, model: string, usage: TokenCounts, costUsd: number) {
  const toolCalls = message.parts.flatMap((part) =>
    part.kind === 'tool_use' ? [{ id: part.id, name: part.name, arguments: (part.input ?? {}) as Record<string, unknown> }] : [],
  );
  return { kind: 'reply' as const, text: textOf(message), toolCalls, model, usage, costUsd };
}

export function createModelStepActivities(deps: ActivityDeps) {
  const { store, pool, gateway, tools } = deps;
  /** Why the recorded spend is over a budget; nothing to read when the step has no budget. */
  const overBudgetNow = async (input: ModelStepInput): Promise<string | undefined> => {
    const budget = input.budget;
    if (!budget || (!budget.taskTokens && !budget.agentTokens && !budget.taskCostUsd)) return undefined;
    const agent = budget.agentTokens ? await spendOf(pool, input.taskId, input.agentId) : { tokens: 0, costUsd: 0 };
    return overBudget(budget, await spendOf(pool, input.taskId), agent);
  };

  /**
   * The session's conversation before this task, as the task run's transcript starts: the user's
   * and the assistant's turns (agents of a COMPLEX task start from their own subtask).
   */
  const conversationSoFar = async (input: ModelStepInput): Promise<Message[]> => {
    if (!input.sessionId || input.runAgentId) return [];
    const history = await listHistory(pool, input.sessionId);
    return history.flatMap((m): Message[] => (m.role === 'system' || m.content === '' ? [] : [{ role: m.role, parts: [{ kind: 'text', text: m.content }] }]));
  };

  return {
    /**
     * One LLM call. The transcript comes from the run log and the reply is appended to it, with its
     * usage, under a key fixed by the step: a retried step whose reply is stored returns that reply
     * and never calls the model twice. One read and one transaction per step.
     */
    async runModelStep(input: ModelStepInput): Promise<ModelStepResult> {
      return failPermanentErrorsFast(async () => {
        const owner = ownerOf(input.runId, input.sessionId, input.runAgentId);
        const at = new Date(input.stepAtMs);
        const log = await readRunLog(store, input.runId);
        const stored = log.find((record) => record.key === stepReplyKey(owner, input.step));
        if (stored) {
          const reply = decodeTranscriptRecord(stored);
          const usage = reply.usage ?? { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
          const model = reply.model ?? '';
          const crossed = await overBudgetNow(input);
          return { ...replyOf(reply.messages[0]!, model, usage, costOf(findModel(gateway.catalog, model), usage)), ...(crossed ? { overBudget: crossed } : {}) };
        }
        // An ended session refuses new planner work; the workflow then records the cancellation.
        if (input.sessionId && (await store.loadSessionStatus(input.sessionId)) !== 'active') return { kind: 'session_ended' };
        const already = await overBudgetNow(input);
        if (already) return { kind: 'over_budget', reason: already };

        // What this step adds before the model's reply: the seed on step 0, the previous step's tool
        // results after a tool step. They are stored together with the reply, in one transaction.
        const added: RecordInput[] = [];
        if (input.step === 0 && input.seed !== undefined) {
          added.push(seedRecord(owner, at, { messages: [...(await conversationSoFar(input)), userText(input.seed)] }));
        }
        if (input.toolResultsFor && input.toolResultsFor.length > 0) {
          const parts: Part[] = input.toolResultsFor.map((id) => {
            const result = log.find((record) => record.key === toolResultKey(owner, id));
            if (!result) throw new Error(`tool call ${id} has no stored result`);
            const { outcome } = JSON.parse(Buffer.from(result.payload).toString('utf8')) as { outcome: ToolOutcome };
            return { kind: 'tool_result', toolUseId: id, content: outcome.ok ? outcome.content : outcome.error, ...(outcome.ok ? {} : { isError: true }) };
          });
          added.push(toolResultsRecord(owner, input.step, at, { messages: [{ role: 'user', parts }] }));
        }
        const tier = input.tier ?? 'MEDIUM';
        const signal = Context.current().cancellationSignal;
        let messages = [...replayRunLogRecords(log), ...added.flatMap((record) => decodeTranscriptRecord(record).messages)];
        const compression = input.history
          ? await whileHeartbeating(() => compressHistory(gateway, { messages, tier, policy: input.history!, signal, ...(input.system ? { system: input.system } : {}) }))
          : undefined;
        const compaction = compression && stepCompactionRecord(owner, input.step, at, compression.record);
        if (compaction) {
          added.push(compaction);
          messages = compression.messages;
        }

        const toolMetadata = (input.tools ?? []).flatMap((name) => tools.get(name) ?? []);
        const { completion, cacheHit, remember } = await stepCompletion(deps, input, {
          tier,
          messages,
          ...(input.system ? { system: input.system } : {}),
          tools: toolMetadata,
          signal,
        });
        const { costUsd } = completion;
        const reply = stepReplyRecord(owner, input.step, at, {
          messages: [completion.message],
          model: completion.model,
          finishReason: completion.finishReason,
          usage: completion.usage,
        });
        await store.appendRunRecords([...added, reply], async (tx) => {
          if (compaction) {
            const { model, usage } = compression.record;
            await recordStepUsage(tx, { taskId: input.taskId, stepKey: compaction.key, agentId: input.agentId, model, ...usage, costUsd: compression.costUsd, at });
          }
          await recordStepUsage(tx, { taskId: input.taskId, stepKey: reply.key, agentId: input.agentId, model: completion.model, ...completion.usage, costUsd, cacheHit, at });
          await remember(tx);
        });
        const crossed = await overBudgetNow(input);
        return { ...replyOf(completion.message, completion.model, completion.usage, costUsd), ...(crossed ? { overBudget: crossed } : {}) };
      });
    },
  };
}
