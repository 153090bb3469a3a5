import { continueAsNew } from '@temporalio/workflow';
import { TaskAgent, taskRunOf } from '../core/tasks/run/task-ref';
import { runAgentLoop, type AgentLoopState } from './agent-loop';
import { loopSettingsOf } from './settings';
import { loopOutcome, type TaskOutcome } from './task-outcomes';
import type { TaskContext, taskWorkflow } from './task-workflow';

/** STANDARD: one agent on the task's own run; long loops continue in a fresh history. */
export async function runSingleAgent(ctx: TaskContext, query: string, from: AgentLoopState): Promise<TaskOutcome> {
  const { input } = ctx;
  ctx.view.progress = 0.1;
  const loop = await runAgentLoop(
    {
      task: { ...ctx.task, query },
      run: { runId: taskRunOf(ctx.task.taskWorkflowId).runId },
      agentId: TaskAgent.Main,
      seed: query,
      tools: ctx.tools.map((t) => t.name),
      dangerousTools: ctx.tools.filter((t) => t.dangerous).map((t) => t.name),
      ...loopSettingsOf(input.settings),
      ...(input.settings.history ? { history: input.settings.history } : {}),
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
