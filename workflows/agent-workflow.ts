import { CancellationScope, isCancellation, workflowInfo } from '@temporalio/workflow';
import type { HistoryPolicy } from '../core/llm/history-compression';
import type { AgentTask } from '../core/orchestration/plan';
import type { AgentRunInput } from '../core/tasks/run/agent-runs';
import { agentRunIdOf } from '../core/tasks/run/task-ref';
import { storeActivities } from './activity-stubs';
import { createApprovalGate } from './approval-gate';
import { initialLoopState, runAgentLoop, type AgentLoopResult, type AgentLoopState } from './agent-loop';
import { taskRunIdOf, taskScopeOf, type TaskScope } from './task-scope';
import { loopSettingsOf, type TaskSettings } from './settings';
import { agentSteering } from './task-steering';
import { enterRun } from './run-context';
import { continueOnCurrentBuild } from './continue-on-current-build';

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
  // The agent's own run is keyed by its child workflow's id, in the scope of the task's run (a reset's run starts agents of its own).
  enterRun(taskScopeOf(input));
  const taskRunId = taskRunIdOf(input);
  const runId = agentRunIdOf(workflowInfo().workflowId, taskRunId);
  const agentRun: Omit<AgentRunInput, 'atMs'> = {
    taskId: input.taskId,
    workflowId: input.taskWorkflowId,
    taskRunId,
    sessionId: input.sessionId,
    agentId: input.agent.id,
    runId,
  };
  const awaitApproval = createApprovalGate({}, { taskWorkflowId: input.taskWorkflowId });
  const steering = agentSteering();

  let runAgentId = input.resume?.runAgentId ?? '';
  if (!input.resume) {
    const started = await startAgent({ ...agentRun, atMs: Date.now() });
    if (!started.proceed) return { kind: 'session_ended', state: initialLoopState };
    runAgentId = started.runAgentId;
  }

  let result: AgentLoopResult;
  const history = historyPolicyOf(input);
  try {
    result = await runAgentLoop(
      {
        task: taskScopeOf(input),
        run: { runId, runAgentId },
        agentId: input.agent.id,
        seed: seedFor(input),
        system: 'You are one agent of a team. Do your part of the task and answer with its result.',
        tools: input.agent.tools,
        dangerousTools: input.dangerousTools,
        tier: input.agent.tier,
        ...loopSettingsOf(input.settings),
        ...(history ? { history } : {}),
        awaitApproval,
        hold: steering.hold,
        takeMessages: steering.takeMessages,
      },
      input.resume ?? initialLoopState,
    );
  } catch (err) {
    const cancelled = isCancellation(err);
    // The run's end is recorded even when this workflow is being cancelled.
    await CancellationScope.nonCancellable(() =>
      finishAgent({
        ...agentRun,
        status: cancelled ? 'CANCELLED' : 'FAILED',
        result: '',
        error: cancelled ? '' : String((err as Error).message),
        atMs: Date.now(),
      }),
    );
    throw err;
  }
  if (result.kind === 'continue') return continueOnCurrentBuild<typeof agentWorkflow>({ ...input, resume: { ...result.state, runAgentId } });

  const stoppedByPerson = result.kind === 'session_ended' || result.kind === 'rejected' || result.kind === 'approval_timeout';
  await finishAgent({
    ...agentRun,
    status: result.kind === 'answered' ? 'COMPLETED' : stoppedByPerson ? 'CANCELLED' : 'FAILED',
    result: result.kind === 'answered' ? result.text : '',
    error: result.kind === 'answered' ? '' : result.kind === 'over_budget' ? result.reason : result.kind,
    ...(stoppedByPerson ? { cancellationReason: result.kind === 'rejected' ? 'approval_rejected' : result.kind } : {}),
    atMs: Date.now(),
  });
  return result;
}
