import {
  ApplicationFailure,
  CancellationScope,
  ContinueAsNew,
  continueAsNew,
  isCancellation,
  log,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { FinishTaskInput, ToolSummary } from '../activities/task-lifecycle';
import type { ExecutionMode } from '../core/orchestration/complexity';
import type { Plan } from '../core/orchestration/plan';
import { lifecycleActivities, modelActivities, storeActivities, toolActivities } from './activity-stubs';
import { createApprovalGate, type AwaitApproval } from './approval-gate';
import { initialLoopState, runAgentLoop, type AgentLoopResult, type AgentLoopState } from './agent-loop';
import { cancelTaskSignal, taskFailedType, taskStatusQuery, type CancelRequest, type TaskView } from './messages';
import { runPlan } from './plan-runner';
import { executionModeKey, taskStatusKey } from './search-attributes';
import { budgetOf, type TaskSettings } from './settings';

export interface TaskWorkflowInput {
  taskId: string;
  tenantId: string;
  userId: string;
  /** The submitting caller's roles: the tool policy reads them, and an admin's dangerous tool calls need no approval. */
  roles?: string[];
  sessionId: string;
  query: string;
  /** False: never decompose (STANDARD). True: complexity analysis picks the mode. */
  autoDecompose: boolean;
  /** The caller's plan: runs as COMPLEX without analysis. */
  manualPlan?: Plan;
  requireApproval: boolean;
  settings: TaskSettings;
  /** Only these tools are offered (AgentService's available_tools); all registered ones when absent. */
  allowedTools?: string[];
  /** Set when a single-agent task continues in a fresh history. */
  resume?: { tools: ToolSummary[]; loop: AgentLoopState };
}


export interface TaskWorkflowResult {
  status: FinishTaskInput['status'];
  code?: 'BUDGET_EXCEEDED';
  mode: ExecutionMode | '';
  result: string;
  errorMessage: string;
  modelUsed: string;
  tokens: number;
  costUsd: number;
}

type TaskOutcome = Pick<FinishTaskInput, 'status' | 'result' | 'errorMessage' | 'code' | 'cancellationReason'> & { model: string };

const { recordCancellationRequest, recordPlan, checkPlanText } = storeActivities;
const { startTask, finishTask } = lifecycleActivities;
const { analyzeComplexity, decomposeTask, runModelStep } = modelActivities;
const { runToolCall } = toolActivities;

const completed = (result: string, model: string): TaskOutcome => ({ status: 'COMPLETED', result, errorMessage: '', model });
const failed = (errorMessage: string, model = ''): TaskOutcome => ({ status: 'FAILED', result: '', errorMessage, model });

/** What a finished agent loop means for the task. */
function loopOutcome(loop: Exclude<AgentLoopResult, { kind: 'continue' }>): TaskOutcome {
  const model = loop.state.model;
  switch (loop.kind) {
    case 'answered':
      return completed(loop.text, model);
    case 'over_budget':
      return { ...failed(loop.reason, model), code: 'BUDGET_EXCEEDED' };
    case 'session_ended':
      return { status: 'CANCELLED', result: '', errorMessage: 'session ended', cancellationReason: 'session_ended', model };
    case 'rejected':
      return { status: 'CANCELLED', result: '', errorMessage: `rejected: ${loop.feedback}`, cancellationReason: 'approval_rejected', model };
    case 'approval_timeout':
      return { status: 'TIMEOUT', result: '', errorMessage: 'approval timed out', cancellationReason: 'approval_timeout', model };
  }
}

const outputText = (content: unknown) => (typeof content === 'string' ? content : JSON.stringify(content));

/**
 * One task, end to end. Records the run's start, routes the task (SIMPLE, STANDARD or COMPLEX),
 * asks for approval when required, runs one agent or a DAG of agent child workflows, and records
 * the terminal status with its usage. Every side effect is an activity; this code only decides,
 * with workflow time for every timestamp, so activity retries are exact retries.
 */
export async function taskWorkflow(input: TaskWorkflowInput): Promise<TaskWorkflowResult> {
  const { workflowId, startTime } = workflowInfo();
  const view: TaskView = { status: 'RUNNING', mode: '', progress: 0, agents: [], tokens: 0, costUsd: 0 };
  setHandler(taskStatusQuery, () => view);
  const awaitApproval = createApprovalGate(view);
  const run = { taskId: input.taskId, runId: workflowId, sessionId: input.sessionId };
  const setMode = (mode: ExecutionMode) => {
    view.mode = mode;
    upsertSearchAttributes([{ key: executionModeKey, value: mode }]);
  };

  let tools = input.resume?.tools;
  if (!tools) {
    upsertSearchAttributes([{ key: taskStatusKey, value: 'RUNNING' }]);
    const started = await startTask({ ...input, workflowId, runId: workflowId, mode: 'STANDARD', startedAtMs: startTime.getTime() });
    if (!started.proceed) {
      view.status = 'CANCELLED';
      upsertSearchAttributes([{ key: taskStatusKey, value: 'CANCELLED' }]);
      return { status: 'CANCELLED', mode: '', result: '', errorMessage: 'session ended', modelUsed: '', tokens: 0, costUsd: 0 };
    }
    tools = started.tools;
  }

  // CancelTask: record the intent with its reason first, then cancel the work (and every child).
  const work = new CancellationScope();
  let cancelRequest: CancelRequest | undefined;
  let cancelling: Promise<void> | undefined;
  let finishing = false;
  setHandler(cancelTaskSignal, (request) => {
    if (cancelRequest || finishing) return;
    cancelRequest = request;
    cancelling = recordCancellationRequest({ runId: workflowId, sessionId: input.sessionId, reason: request.reason, atMs: Date.now() }).then(
      () => work.cancel(),
      // Handled here: a rejection nobody awaits yet would fail the workflow task.
      (err: unknown) => log.warn('recording the cancellation request failed', { error: String(err) }),
    );
  });

  const context: TaskContext = { input, workflowId, tools, view, awaitApproval, setMode };
  let outcome: TaskOutcome;
  try {
    outcome = await work.run(() => runTask(context));
  } catch (err) {
    // Handing over to a fresh history is not an ending.
    if (err instanceof ContinueAsNew) throw err;
    if (!isCancellation(err)) {
      outcome = failed(err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err));
    } else if (cancelRequest) {
      outcome = { status: 'CANCELLED', result: '', errorMessage: `cancelled: ${cancelRequest.reason}`, model: '' };
    } else {
      // The engine cancelled the workflow (no CancelTask): record it as such, then end as cancelled.
      await CancellationScope.nonCancellable(() => finish({ status: 'CANCELLED', result: '', errorMessage: 'cancelled', model: '' }));
      throw err;
    }
  }
  finishing = true;
  await cancelling;
  return finish(outcome);

  async function finish(end: TaskOutcome): Promise<TaskWorkflowResult> {
    await finishTask({ ...run, ...end, finishedAtMs: Date.now() });
    view.status = end.status;
    view.progress = 1;
    upsertSearchAttributes([{ key: taskStatusKey, value: end.status }]);
    const result: TaskWorkflowResult = {
      status: end.status,
      mode: view.mode,
      result: end.result,
      errorMessage: end.errorMessage,
      modelUsed: end.model,
      tokens: view.tokens,
      costUsd: view.costUsd,
      ...(end.code ? { code: end.code } : {}),
    };
    // A failed task fails its workflow (the Web UI shows it); the failure's details are its result.
    if (end.status === 'FAILED') throw ApplicationFailure.nonRetryable(`task failed: ${end.code ? `${end.code}: ` : ''}${end.errorMessage}`, taskFailedType, result);
    return result;
  }
}

interface TaskContext {
  input: TaskWorkflowInput;
  workflowId: string;
  tools: ToolSummary[];
  view: TaskView;
  awaitApproval: AwaitApproval;
  setMode(mode: ExecutionMode): void;
}

async function runTask(ctx: TaskContext): Promise<TaskOutcome> {
  const { input, workflowId } = ctx;
  if (input.resume) {
    ctx.setMode('STANDARD');
    return runSingleAgent(ctx, input.query, input.resume.loop);
  }
  const routingInput = { taskId: input.taskId, workflowId, tenantId: input.tenantId, userId: input.userId, sessionId: input.sessionId, query: input.query };
  let plan = input.manualPlan;
  let mode: ExecutionMode = plan ? 'COMPLEX' : 'STANDARD';
  let estimatedCostUsd = 0;
  let directTool: { name: string; arguments: Record<string, unknown> } | undefined;
  if (!plan && input.autoDecompose) {
    const routing = await analyzeComplexity({ ...routingInput, atMs: Date.now() });
    mode = routing.verdict.recommended_mode;
    estimatedCostUsd = routing.verdict.estimated_cost_usd;
    if (routing.cachedAnswer !== undefined) {
      ctx.setMode('SIMPLE');
      return completed(routing.cachedAnswer, 'cache');
    }
    directTool = routing.verdict.direct_tool;
    if (mode === 'COMPLEX') {
      const decomposition = await decomposeTask({ ...routingInput, atMs: Date.now() });
      if (!decomposition.ok) return failed(`could not decompose the task: ${decomposition.errors.join('; ')}`);
      plan = decomposition.plan;
    }
  }
  ctx.setMode(mode);

  const dangerous = ctx.tools.filter((t) => t.dangerous).map((t) => t.name);
  const reasons: string[] = [];
  if (input.requireApproval) reasons.push('the request requires approval');
  const dangerousInPlan = [...new Set((plan?.agents ?? []).flatMap((a) => a.tools).filter((t) => dangerous.includes(t)))];
  if (dangerousInPlan.length > 0) reasons.push(`the plan uses dangerous tools: ${dangerousInPlan.join(', ')}`);
  const threshold = input.settings.approvalCostThresholdUsd;
  if (threshold > 0 && estimatedCostUsd > threshold) reasons.push(`estimated cost $${estimatedCostUsd} is above $${threshold}`);

  let query = input.query;
  let planChanged = Boolean(input.manualPlan);
  if (reasons.length > 0) {
    let approvedPlan: Plan | undefined;
    const decision = await ctx.awaitApproval(
      {
        approvalId: `${workflowId}/plan`,
        taskId: input.taskId,
        taskWorkflowId: workflowId,
        runId: workflowId,
        tenantId: input.tenantId,
        userId: input.userId,
        sessionId: input.sessionId,
        query: input.query,
        kind: 'plan',
        proposedAction: plan ? { mode, plan } : { mode, query: input.query },
        reason: reasons.join('; '),
        timeoutMs: input.settings.approvalTimeoutMs,
      },
      // A modified plan is validated like a model's; without a plan, the modification is the query.
      plan
        ? async (text) => {
            const check = await checkPlanText(text);
            if (!check.ok) return check.errors.join('; ');
            approvedPlan = check.plan;
            return undefined;
          }
        : undefined,
    );
    if (decision.outcome === 'timeout') return loopOutcome({ kind: 'approval_timeout', state: initialLoopState });
    if (decision.outcome === 'rejected') return loopOutcome({ kind: 'rejected', feedback: decision.feedback, state: initialLoopState });
    if (decision.modifiedAction) {
      if (approvedPlan) {
        plan = approvedPlan;
        planChanged = true;
      } else query = decision.modifiedAction;
    }
  }

  if (plan) return runPlanned(ctx, plan, planChanged);
  if (mode === 'SIMPLE' && directTool) {
    const outcome = await runToolCall({
      taskId: input.taskId,
      workflowId,
      tenantId: input.tenantId,
      userId: input.userId,
      ...(input.roles ? { roles: input.roles } : {}),
      runId: workflowId,
      sessionId: input.sessionId,
      agentId: 'main',
      call: { id: 'direct', ...directTool },
      atMs: Date.now(),
    });
    return outcome.ok ? completed(outputText(outcome.content), directTool.name) : failed(`${outcome.error.category} error: ${outcome.error.message}`);
  }
  return runSingleAgent(ctx, query, initialLoopState);
}

/** STANDARD: one agent on the task's own run; long loops continue in a fresh history. */
async function runSingleAgent(ctx: TaskContext, query: string, from: AgentLoopState): Promise<TaskOutcome> {
  const { input, workflowId } = ctx;
  ctx.view.progress = 0.1;
  const loop = await runAgentLoop(
    {
      taskId: input.taskId,
      taskWorkflowId: workflowId,
      tenantId: input.tenantId,
      userId: input.userId,
      ...(input.roles ? { roles: input.roles } : {}),
      sessionId: input.sessionId,
      query,
      runId: workflowId,
      agentId: 'main',
      seed: query,
      tools: ctx.tools.map((t) => t.name),
      dangerousTools: ctx.tools.filter((t) => t.dangerous).map((t) => t.name),
      maxIterations: input.settings.maxIterations,
      stepsPerHistory: input.settings.stepsPerHistory,
      ...(input.settings.history ? { history: input.settings.history } : {}),
      ...(input.settings.cacheModelSteps ? { cacheModelSteps: true } : {}),
      ...(input.settings.sandboxMemoryMb ? { sandboxMemoryMb: input.settings.sandboxMemoryMb } : {}),
      toolParallelism: input.settings.toolParallelism,
      budget: budgetOf(input.settings),
      approvalTimeoutMs: input.settings.approvalTimeoutMs,
      awaitApproval: ctx.awaitApproval,
      onUsage: (tokens, costUsd) => {
        ctx.view.tokens += tokens;
        ctx.view.costUsd += costUsd;
      },
    },
    from,
  );
  if (loop.kind === 'continue') {
    return continueAsNew<typeof taskWorkflow>({ ...input, query, resume: { tools: ctx.tools, loop: loop.state } });
  }
  return loopOutcome(loop);
}

/** COMPLEX: the plan's agents as child workflows, then one synthesis step over their results. */
async function runPlanned(ctx: TaskContext, plan: Plan, record: boolean): Promise<TaskOutcome> {
  const { input, workflowId } = ctx;
  if (record) {
    await recordPlan({ taskId: input.taskId, workflowId, tenantId: input.tenantId, userId: input.userId, sessionId: input.sessionId, query: input.query, atMs: Date.now(), plan });
  }
  ctx.view.agents = plan.agents.map((a) => ({ agentId: a.id, status: 'PENDING', result: '', tokens: 0, costUsd: 0 }));
  const outcome = await runPlan(plan, {
    taskId: input.taskId,
    tenantId: input.tenantId,
    userId: input.userId,
    ...(input.roles ? { roles: input.roles } : {}),
    sessionId: input.sessionId,
    query: input.query,
    dangerousTools: ctx.tools.filter((t) => t.dangerous).map((t) => t.name),
    settings: input.settings,
    agents: ctx.view.agents,
  });
  ctx.view.tokens = ctx.view.agents.reduce((sum, a) => sum + a.tokens, 0);
  ctx.view.costUsd = ctx.view.agents.reduce((sum, a) => sum + a.costUsd, 0);
  ctx.view.progress = 0.9;
  if (outcome.kind === 'stopped') {
    const stopped = outcome.result;
    if (stopped.kind === 'failed') return failed(`agent ${outcome.agentId} failed: ${stopped.message}`);
    return loopOutcome(stopped);
  }
  if (outcome.results.length === 1) return completed(outcome.results[0]!.result, '');

  const seed = [
    `Task: ${input.query}`,
    ...outcome.results.map((r) => `## Result of ${r.agentId}\n${r.result}`),
    'Combine these results into one final answer to the task.',
  ].join('\n\n');
  const synthesis = await runModelStep({
    taskId: input.taskId,
    runId: workflowId,
    sessionId: input.sessionId,
    agentId: 'synthesis',
    step: 0,
    seed,
    budget: budgetOf(input.settings),
    stepAtMs: Date.now(),
  });
  if (synthesis.kind === 'session_ended') return loopOutcome({ kind: 'session_ended', state: initialLoopState });
  if (synthesis.kind === 'over_budget') return loopOutcome({ kind: 'over_budget', reason: synthesis.reason, state: initialLoopState });
  ctx.view.tokens += synthesis.usage.totalTokens;
  ctx.view.costUsd += synthesis.costUsd;
  if (synthesis.overBudget) return { ...failed(synthesis.overBudget, synthesis.model), code: 'BUDGET_EXCEEDED' };
  return completed(synthesis.text, synthesis.model);
}
