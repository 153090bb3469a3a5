import { CancellationScope, continueAsNew, isCancellation, workflowInfo } from '@temporalio/workflow';
import type { HistoryPolicy } from '../core/llm/history-compression';
import type { AgentTask } from '../core/orchestration/plan';
import { storeActivities } from './activity-stubs';
import { createApprovalGate } from './approval-gate';
import { initialLoopState, runAgentLoop, type AgentLoopResult, type AgentLoopState, type TaskScope } from './agent-loop';
import { budgetOf, type TaskSettings } from './settings';

const { startAgent, finishAgent } = storeActivities;

export interface AgentWorkflowInput extends TaskScope {
  agent: AgentTask;
  dependencyResults: Array<{ agentId: string; result: string }>;
  dangerousTools: string[];
  settings: TaskSettings;
  /** Set when the agent continues in a fresh history. */
  resume?: AgentLoopState & { runAgentId: string };
}

export type AgentWorkflowResult = Exclude<AgentLoopResult, { kind: 'continue' }>;

/** The agent's own history policy from its plan, else the task's. */
function historyPolicyOf(input: AgentWorkflowInput): HistoryPolicy | undefined {
  const own = input.agent.history;
  if (!own) return input.settings.history;
  return { compressAtTokens: own.compress_at_tokens, keepTurns: own.keep_turns, ...(own.model ? { model: own.model } : {}) };
}

function seedFor(input: AgentWorkflowInput): string {
  const context = input.dependencyResults.map((dep) => `## Result of ${dep.agentId}\n${dep.result}`).join('\n\n');
  return [`Overall task: ${input.query}`, `Your part: ${input.agent.description}`, ...(context ? [context] : [])].join('\n\n');
}

/** One agent of a COMPLEX task: its own child run in the store, its own loop, its own approvals. */
export async function agentWorkflow(input: AgentWorkflowInput): Promise<AgentWorkflowResult> {
  const runId = workflowInfo().workflowId;
  const run = { taskId: input.taskId, workflowId: input.taskWorkflowId, sessionId: input.sessionId, agentId: input.agent.id, runId };
  const awaitApproval = createApprovalGate({});

  let runAgentId = input.resume?.runAgentId ?? '';
  if (!input.resume) {
    const started = await startAgent({ ...run, atMs: Date.now() });
    if (!started.proceed) return { kind: 'session_ended', state: initialLoopState };
    runAgentId = started.runAgentId;
  }

  let result: AgentLoopResult;
  const history = historyPolicyOf(input);
  try {
    result = await runAgentLoop(
      {
        taskId: input.taskId,
        taskWorkflowId: input.taskWorkflowId,
        tenantId: input.tenantId,
        userId: input.userId,
        ...(input.roles ? { roles: input.roles } : {}),
        sessionId: input.sessionId,
        query: input.query,
        runId,
        runAgentId,
        agentId: input.agent.id,
        seed: seedFor(input),
        system: 'You are one agent of a team. Do your part of the task and answer with its result.',
        tools: input.agent.tools,
        dangerousTools: input.dangerousTools,
        tier: input.agent.tier,
        maxIterations: input.settings.maxIterations,
        stepsPerHistory: input.settings.stepsPerHistory,
        ...(history ? { history } : {}),
        ...(input.settings.cacheModelSteps ? { cacheModelSteps: true } : {}),
        ...(input.settings.sandboxMemoryMb ? { sandboxMemoryMb: input.settings.sandboxMemoryMb } : {}),
        toolParallelism: input.settings.toolParallelism,
        budget: budgetOf(input.settings),
        approvalTimeoutMs: input.settings.approvalTimeoutMs,
        awaitApproval,
      },
      input.resume ?? initialLoopState,
    );
  } catch (err) {
    const cancelled = isCancellation(err);
    // The run's end is recorded even when this workflow is being cancelled.
    await CancellationScope.nonCancellable(() =>
      finishAgent({ ...run, status: cancelled ? 'CANCELLED' : 'FAILED', result: '', error: cancelled ? '' : String((err as Error).message), atMs: Date.now() }),
    );
    throw err;
  }
  if (result.kind === 'continue') return continueAsNew<typeof agentWorkflow>({ ...input, resume: { ...result.state, runAgentId } });

  const stoppedByPerson = result.kind === 'session_ended' || result.kind === 'rejected' || result.kind === 'approval_timeout';
  await finishAgent({
    ...run,
    status: result.kind === 'answered' ? 'COMPLETED' : stoppedByPerson ? 'CANCELLED' : 'FAILED',
    result: result.kind === 'answered' ? result.text : '',
    error: result.kind === 'answered' ? '' : result.kind === 'over_budget' ? result.reason : result.kind,
    ...(stoppedByPerson ? { cancellationReason: result.kind === 'rejected' ? 'approval_rejected' : result.kind } : {}),
    atMs: Date.now(),
  });
  return result;
}
