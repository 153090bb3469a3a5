import type { Budget, ToolCallRequest } from '../activities/model-step';
import type { HistoryPolicy } from '../core/llm/history-compression';
import type { ModelTier } from '../core/orchestration/plan';
import { modelActivities, storeActivities, toolActivities } from './activity-stubs';
import type { AwaitApproval } from './approval-gate';

// The agent loop shared by a single-agent task and each agent of a COMPLEX task: one activity per
// model step, one per tool call, results fed back, until a final answer or max iterations.

const { runModelStep } = modelActivities;
const { runToolCall } = toolActivities;
const { checkToolArguments } = storeActivities;

export interface AgentLoopState {
  step: number;
  /** Tool calls of the previous step whose results the next step hands back. */
  toolResultsFor: string[];
  tokens: number;
  costUsd: number;
  model: string;
}

/** Which task (and whose) an agent works for. */
export interface TaskScope {
  taskId: string;
  taskWorkflowId: string;
  tenantId: string;
  userId: string;
  /** The submitting caller's roles (absent in tasks started before roles were passed on). */
  roles?: string[];
  sessionId: string;
  query: string;
}

export interface AgentLoopParams extends TaskScope {
  runId: string;
  runAgentId?: string;
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
  sandboxMemoryMb?: number;
  toolParallelism: number;
  budget: Budget;
  approvalTimeoutMs: number;
  awaitApproval: AwaitApproval;
  onUsage?: (tokens: number, costUsd: number) => void;
}

export type AgentLoopResult =
  | { kind: 'answered'; text: string; state: AgentLoopState }
  | { kind: 'session_ended'; state: AgentLoopState }
  | { kind: 'over_budget'; reason: string; state: AgentLoopState }
  | { kind: 'rejected'; feedback: string; state: AgentLoopState }
  | { kind: 'approval_timeout'; state: AgentLoopState }
  | { kind: 'continue'; state: AgentLoopState };

export const initialLoopState: AgentLoopState = { step: 0, toolResultsFor: [], tokens: 0, costUsd: 0, model: '' };

async function inBatches<T, R>(items: T[], size: number, run: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let i = 0; i < items.length; i += size) results.push(...(await Promise.all(items.slice(i, i + size).map(run))));
  return results;
}

export async function runAgentLoop(params: AgentLoopParams, from: AgentLoopState): Promise<AgentLoopResult> {
  const state = { ...from, toolResultsFor: [...from.toolResultsFor] };
  const owner = { runId: params.runId, ...(params.runAgentId ? { runAgentId: params.runAgentId } : {}), sessionId: params.sessionId };
  let stepsHere = 0;
  for (;;) {
    if (stepsHere >= params.stepsPerHistory) return { kind: 'continue', state };
    const step = await runModelStep({
      ...owner,
      taskId: params.taskId,
      workflowId: params.taskWorkflowId,
      agentId: params.agentId,
      step: state.step,
      ...(state.step === 0 ? { seed: params.seed } : {}),
      ...(params.system ? { system: params.system } : {}),
      toolResultsFor: state.toolResultsFor,
      tools: params.tools,
      ...(params.tier ? { tier: params.tier } : {}),
      budget: params.budget,
      ...(params.history ? { history: params.history } : {}),
      ...(params.cacheModelSteps ? { cacheFor: params.tenantId } : {}),
      stepAtMs: Date.now(),
    });
    if (step.kind === 'session_ended') return { kind: 'session_ended', state };
    if (step.kind === 'over_budget') return { kind: 'over_budget', reason: step.reason, state };
    state.step += 1;
    stepsHere += 1;
    state.tokens += step.usage.totalTokens;
    state.costUsd += step.costUsd;
    state.model = step.model;
    params.onUsage?.(step.usage.totalTokens, step.costUsd);
    if (step.overBudget) return { kind: 'over_budget', reason: step.overBudget, state };
    if (step.toolCalls.length === 0) return { kind: 'answered', text: step.text, state };
    if (state.step >= params.maxIterations) {
      return { kind: 'answered', text: step.text || `stopped after ${params.maxIterations} iterations without a final answer`, state };
    }

    const calls: ToolCallRequest[] = [];
    for (const call of step.toolCalls) {
      // An admin's own task runs its dangerous tools without asking anyone.
      if (!params.dangerousTools.includes(call.name) || params.roles?.includes('admin')) {
        calls.push(call);
        continue;
      }
      const decision = await params.awaitApproval(
        {
          approvalId: `${params.runId}/tool/${call.id}`,
          taskId: params.taskId,
          taskWorkflowId: params.taskWorkflowId,
          runId: params.runId,
          ...(params.runAgentId ? { runAgentId: params.runAgentId } : {}),
          agentId: params.agentId,
          tenantId: params.tenantId,
          userId: params.userId,
          sessionId: params.sessionId,
          query: params.query,
          kind: 'tool',
          proposedAction: { tool: call.name, arguments: call.arguments },
          reason: `${call.name} is a dangerous tool`,
          timeoutMs: params.approvalTimeoutMs,
        },
        async (modified) => {
          const check = await checkToolArguments({ tool: call.name, argumentsText: modified });
          return check.ok ? undefined : check.error;
        },
      );
      if (decision.outcome === 'timeout') return { kind: 'approval_timeout', state };
      if (decision.outcome === 'rejected') return { kind: 'rejected', feedback: decision.feedback, state };
      calls.push(decision.modifiedAction ? { ...call, arguments: JSON.parse(decision.modifiedAction) as Record<string, unknown> } : call);
    }
    await inBatches(calls, params.toolParallelism, (call) =>
      runToolCall({
        ...owner,
        taskId: params.taskId,
        workflowId: params.taskWorkflowId,
        tenantId: params.tenantId,
        userId: params.userId,
        ...(params.roles ? { roles: params.roles } : {}),
        ...(params.sandboxMemoryMb ? { sandboxMemoryMb: params.sandboxMemoryMb } : {}),
        agentId: params.agentId,
        call,
        atMs: Date.now(),
      }),
    );
    state.toolResultsFor = calls.map((call) => call.id);
  }
}
