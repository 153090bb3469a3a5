import type { Plan } from '../core/orchestration/plan';
import { TaskAgent } from '../core/tasks/run/task-ref';
import { modelActivities, storeActivities } from './activity-stubs';
import { initialLoopState } from './agent-loop';
import { runPlan } from './plan-runner';
import { budgetOf } from './settings';
import { completed, failed, loopOutcome, type TaskOutcome } from './task-outcomes';
import { routingInputOf, taskRunIdOf } from './task-scope';
import type { TaskContext } from './task-workflow-types';
import type { AgentView, TaskMessage } from './messages';

const { recordPlan } = storeActivities;
const { runModelStep } = modelActivities;

const withMessages = (messages: TaskMessage[]) => (messages.length > 0 ? { messages } : {});

/** COMPLEX: the plan's agents as child workflows, then one synthesis step over their results. */
export async function runPlanned(ctx: TaskContext, plan: Plan, record: boolean): Promise<TaskOutcome> {
  const { input, task } = ctx;
  if (record) {
    await recordPlan({ ...routingInputOf(task), plan });
  }
  const agents: AgentView[] = plan.agents.map((a) => ({ agentId: a.id, status: 'PENDING', result: '', tokens: 0, costUsd: 0 }));
  ctx.report.planned(agents);
  const outcome = await runPlan(plan, {
    task,
    dangerousTools: ctx
      .tools()
      .filter((t) => t.dangerous)
      .map((t) => t.name),
    settings: input.settings,
    agents,
    hold: ctx.hold,
  });
  ctx.report.spent(
    agents.reduce((sum, a) => sum + a.tokens, 0),
    agents.reduce((sum, a) => sum + a.costUsd, 0),
  );
  ctx.report.progress(0.9);
  if (outcome.kind === 'stopped') {
    const stopped = outcome.result;
    if (stopped.kind === 'failed') return failed(`agent ${outcome.agentId} failed: ${stopped.message}`);
    return loopOutcome(stopped);
  }
  if (outcome.results.length === 1) return withCutOffs(completed(outcome.results[0]!.result, ''), outcome.truncated, false);

  const seed = [
    `Task: ${task.query}`,
    ...outcome.results.map((r) => `## Result of ${r.agentId}\n${r.result}`),
    'Combine these results into one final answer to the task.',
  ].join('\n\n');
  const synthesisInput = {
    taskId: task.taskId,
    runId: taskRunIdOf(task),
    sessionId: task.sessionId,
    agentId: TaskAgent.Synthesis,
    step: 0,
    seed,
    budget: budgetOf(input.settings),
    stepAtMs: Date.now(),
    ...withMessages(ctx.takeMessages()),
  };
  await ctx.hold();
  const synthesis = await runModelStep.executeWithOptions({ summary: `synthesis of ${outcome.results.length} agents' results` }, [synthesisInput]);
  if (synthesis.kind === 'session_ended') return loopOutcome({ kind: 'session_ended', state: initialLoopState });
  if (synthesis.kind === 'over_budget') return loopOutcome({ kind: 'over_budget', reason: synthesis.reason, state: initialLoopState });
  ctx.report.spent(synthesis.usage.totalTokens, synthesis.costUsd);
  if (synthesis.overBudget) return { ...failed(synthesis.overBudget, synthesis.model), code: 'BUDGET_EXCEEDED' };
  return withCutOffs(completed(synthesis.text, synthesis.model), outcome.truncated, synthesis.finishReason === 'length');
}

/** A completed plan whose agents' or synthesis's answers the token limit cut off says so: never passed off as whole. */
function withCutOffs(outcome: TaskOutcome, agents: string[], synthesisCutOff: boolean): TaskOutcome {
  const cut = [...agents.map((id) => `agent ${id} (even after it was continued)`), ...(synthesisCutOff ? ['the synthesis'] : [])];
  if (cut.length === 0) return outcome;
  return { ...outcome, errorMessage: `answers cut off at the model's token limit (finish_reason length): ${cut.join(', ')}` };
}
