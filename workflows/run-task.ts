import type { ExecutionMode } from '../core/orchestration/complexity';
import type { Plan } from '../core/orchestration/plan';
import { TaskAgent, taskRefOf } from '../core/tasks/run/task-ref';
import { modelActivities, storeActivities, toolActivities } from './activity-stubs';
import { initialLoopState, runAgentLoop, type AgentLoopState } from './agent-loop';
import { runPlanned } from './planned-task';
import { approvalRequestOf } from './approval-gate';
import { reviewPlan } from './plan-review';
import { continueOnCurrentBuild } from './continue-on-current-build';
import { completed, failed, loopOutcome, type TaskOutcome } from './task-outcomes';
import { routingInputOf, taskRunFieldsOf, taskRunIdOf } from './task-scope';
import { loopSettingsOf } from './settings';
import type { TaskContext, TaskWorkflowFunction, TaskWorkflowInput } from './task-workflow-types';
import { clientToolExchange } from './client-tool-calls';

const { checkPlanText } = storeActivities;
const { analyzeComplexity, decomposeTask } = modelActivities;
const { runToolCall } = toolActivities;

/** Where routing leads: a cached answer ends the task at once. */
type Route =
  | { kind: 'answered'; answer: string }
  | { kind: 'failed'; error: string }
  | {
      kind: 'run';
      mode: ExecutionMode;
      plan?: Plan;
      /** The plan was revised in its review: recorded again before it runs. */
      revised?: boolean;
      estimatedCostUsd: number;
      directTool?: { name: string; arguments: Record<string, unknown> };
    };

const outputText = (content: unknown) => (typeof content === 'string' ? content : JSON.stringify(content));

/** The mode (and plan) a task runs in: the caller's plan, complexity analysis, or STANDARD. */
function routeTask(ctx: TaskContext): Route | Promise<Route> {
  const { input } = ctx;
  if (input.directTool) return { kind: 'run', mode: 'SIMPLE', estimatedCostUsd: 0, directTool: input.directTool };
  const plan = input.manualPlan;
  // Known without asking anything (STANDARD, nearly always): no promise to wait for.
  if (plan || (!input.autoDecompose && !input.reviewPlan))
    return { kind: 'run', mode: plan ? 'COMPLEX' : 'STANDARD', ...(plan ? { plan } : {}), estimatedCostUsd: 0 };
  return routedByModel(ctx);
}

/** A route a model decides: a plan to review (the planner makes it), or complexity analysis. */
async function routedByModel({ input, task }: TaskContext): Promise<Route> {
  // A plan to review is a plan: no analysis, the planner makes one.
  if (input.reviewPlan) return decomposed(task, 'COMPLEX', 0);
  const routing = await analyzeComplexity.executeWithOptions({ summary: 'complexity analysis: which mode the task runs in' }, [routingInputOf(task)]);
  if (routing.cachedAnswer !== undefined) return { kind: 'answered', answer: routing.cachedAnswer };
  const { recommended_mode: mode, estimated_cost_usd: estimatedCostUsd, direct_tool: directTool } = routing.verdict;
  const direct = directTool ? { directTool } : {};
  if (mode !== 'COMPLEX') return { kind: 'run', mode, estimatedCostUsd, ...direct };
  return decomposed(task, mode, estimatedCostUsd, direct);
}

async function decomposed(task: TaskContext['task'], mode: ExecutionMode, estimatedCostUsd: number, direct = {}): Promise<Route> {
  const decomposition = await decomposeTask.executeWithOptions({ summary: 'decomposition: the plan of agents' }, [routingInputOf(task)]);
  if (!decomposition.ok) return { kind: 'failed', error: `could not decompose the task: ${decomposition.errors.join('; ')}` };
  return { kind: 'run', mode, plan: decomposition.plan, estimatedCostUsd, ...direct };
}

/**
 * Why the task needs a person's approval before it runs; none when it does not. A reason that can
 * hold for a task without routing or plan must also take it off the deferred start (goesStraightToItsAgent, task-workflow.ts).
 */
function approvalReasons(ctx: TaskContext, route: Extract<Route, { kind: 'run' }>): string[] {
  const { input } = ctx;
  const dangerous = ctx
    .tools()
    .filter((t) => t.dangerous)
    .map((t) => t.name);
  const reasons: string[] = [];
  if (input.requireApproval) reasons.push('the request requires approval');
  const dangerousInPlan = [...new Set((route.plan?.agents ?? []).flatMap((a) => a.tools).filter((t) => dangerous.includes(t)))];
  if (dangerousInPlan.length > 0) reasons.push(`the plan uses dangerous tools: ${dangerousInPlan.join(', ')}`);
  const threshold = input.settings.approvalCostThresholdUsd;
  if (threshold > 0 && route.estimatedCostUsd > threshold) reasons.push(`estimated cost $${route.estimatedCostUsd} is above $${threshold}`);
  return reasons;
}

type Approval = { kind: 'stopped'; outcome: TaskOutcome } | { kind: 'approved'; query: string; plan?: Plan; planChanged: boolean };

/** Waits for a person's decision on the task's plan; an approver may replace the plan, or the query when there is none. */
async function approvePlan(ctx: TaskContext, route: Extract<Route, { kind: 'run' }>, reasons: string[]): Promise<Approval> {
  const { task } = ctx;
  let approvedPlan: Plan | undefined;
  const decision = await ctx.awaitApproval(
    approvalRequestOf(task, {
      approvalId: `${task.taskWorkflowId}/plan`,
      runId: taskRunIdOf(task),
      kind: 'plan',
      proposedAction: route.plan ? { mode: route.mode, plan: route.plan } : { mode: route.mode, query: task.query },
      reason: reasons.join('; '),
      timeoutMs: ctx.input.settings.approvalTimeoutMs,
    }),
    // A modified plan is validated like a model's; without a plan, the modification is the query.
    route.plan
      ? async (text) => {
          const check = await checkPlanText(text);
          if (!check.ok) return check.errors.join('; ');
          approvedPlan = check.plan;
          return undefined;
        }
      : undefined,
  );
  if (decision.outcome === 'timeout') return { kind: 'stopped', outcome: loopOutcome({ kind: 'approval_timeout', state: initialLoopState }) };
  if (decision.outcome === 'rejected')
    return { kind: 'stopped', outcome: loopOutcome({ kind: 'rejected', feedback: decision.feedback, state: initialLoopState }) };
  if (decision.modifiedAction && approvedPlan) return { kind: 'approved', query: ctx.task.query, plan: approvedPlan, planChanged: true };
  return asRouted(ctx, route, decision.modifiedAction || ctx.task.query);
}

/** Runs as routed, with this query; a caller's own plan is recorded before it runs. */
const asRouted = (ctx: TaskContext, route: Extract<Route, { kind: 'run' }>, query: string): Approval => ({
  kind: 'approved',
  query,
  ...(route.plan ? { plan: route.plan } : {}),
  planChanged: Boolean(ctx.input.manualPlan || route.revised),
});

/** Routes the task, asks for approval when needed, and runs it in its mode. */
export async function runTask(ctx: TaskContext): Promise<TaskOutcome> {
  const { input, task } = ctx;
  if (input.resume) {
    ctx.report.mode('STANDARD');
    return runSingleAgent(ctx, input.query, input.resume.loop);
  }
  const routing = routeTask(ctx);
  const routed = routing instanceof Promise ? await routing : routing;
  if (routed.kind === 'answered') {
    ctx.report.mode('SIMPLE');
    return completed(routed.answer, 'cache');
  }
  if (routed.kind === 'failed') return failed(routed.error);
  ctx.report.mode(routed.mode);
  const reviewed = input.reviewPlan && routed.plan ? await reviewPlan(task, routed.plan, input.settings.approvalTimeoutMs) : undefined;
  if (reviewed?.kind === 'stopped') return reviewed.outcome;
  const route = reviewed ? { ...routed, plan: reviewed.plan, revised: reviewed.revised } : routed;

  const reasons = approvalReasons(ctx, route);
  const approval = reasons.length > 0 ? await approvePlan(ctx, route, reasons) : asRouted(ctx, route, task.query);
  if (approval.kind === 'stopped') return approval.outcome;

  if (approval.plan) return runPlanned(ctx, approval.plan, approval.planChanged);
  if (route.mode === 'SIMPLE' && route.directTool) {
    const call = { id: 'direct', ...route.directTool };
    const direct = {
      ...taskRefOf(task),
      ...taskRunFieldsOf(task),
      agentId: TaskAgent.Main,
      call,
      atMs: Date.now(),
      ...(task.eval ? { eval: task.eval } : {}),
    };
    const outcome = await runToolCall.executeWithOptions({ summary: `tool ${call.name}, answering the task directly` }, [direct]);
    return outcome.ok ? completed(outputText(outcome.content), call.name) : failed(`${outcome.error.category} error: ${outcome.error.message}`);
  }
  return runSingleAgent(ctx, approval.query, initialLoopState);
}

/** The one agent's system prompt: the named skill's instructions, then the caller's own. */
function systemPromptOf(input: TaskWorkflowInput): { system?: string } {
  const parts = [input.skill?.instructions, input.instructions].filter((part) => part !== undefined);
  return parts.length > 0 ? { system: parts.join('\n\n') } : {};
}

/** STANDARD (and SIMPLE without a direct tool): one agent on the task's own run; long loops continue in a fresh history. */
async function runSingleAgent(ctx: TaskContext, query: string, from: AgentLoopState): Promise<TaskOutcome> {
  const { input } = ctx;
  ctx.report.progress(0.1);
  const loop = await runAgentLoop(
    {
      task: { ...ctx.task, query },
      run: { runId: taskRunIdOf(ctx.task) },
      agentId: TaskAgent.Main,
      seed: query,
      ...systemPromptOf(input),
      tools: ctx.tools().map((t) => t.name),
      dangerousTools: ctx
        .tools()
        .filter((t) => t.dangerous)
        .map((t) => t.name),
      ...loopSettingsOf(input.settings),
      ...(input.settings.history ? { history: input.settings.history } : {}),
      ...(input.settings.modelTier ? { tier: input.settings.modelTier } : {}),
      awaitApproval: ctx.awaitApproval,
      hold: ctx.hold,
      takeMessages: ctx.takeMessages,
      ...(input.fork ? { reuse: { fromRunId: input.fork.fromRunId, belowStep: input.fork.fromStep - 1 } } : {}),
      onToolsOffered: ctx.report.toolsOffered,
      onUsage: ctx.report.spent,
      ...(input.clientTools ? { clientTools: clientToolExchange(input.clientTools) } : {}),
    },
    from,
  );
  if (loop.kind === 'continue') {
    const { reset } = ctx.task;
    return continueOnCurrentBuild<TaskWorkflowFunction>({
      ...input,
      query,
      resume: { tools: [...ctx.tools()], loop: loop.state, runId: taskRunIdOf(ctx.task), ...(reset ? { reset } : {}) },
    });
  }
  return loopOutcome(loop);
}
