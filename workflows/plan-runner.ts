import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { CancellationScope, ChildWorkflowCancellationType, executeChild, isCancellation, sleep } from '@temporalio/workflow';
import type { AgentTask, Plan } from '../core/orchestration/plan';
import { agentWorkflowIdOf, type TaskScope } from './task-scope';
import type { AgentWorkflowInput, AgentWorkflowResult, agentWorkflow } from './agent-workflow';
import type { AgentView } from './messages';
import type { TaskSettings } from './settings';
import { agentMetadata } from './ui-metadata';
import { failureMessageOf } from './task-outcomes';

export interface PlanContext {
  task: TaskScope;
  dangerousTools: string[];
  settings: TaskSettings;
  agents: AgentView[];
  /** Holds while the task is paused: no agent starts meanwhile. */
  hold(): Promise<void> | undefined;
}

type AgentOutcome = AgentWorkflowResult | { kind: 'failed'; message: string; state: { tokens: number; costUsd: number } };

export type PlanOutcome =
  | {
      kind: 'completed';
      results: Array<{ agentId: string; result: string }>;
      /** Agents whose answers stayed cut off at the token limit. */ truncated: string[];
    }
  | { kind: 'stopped'; agentId: string; result: Exclude<AgentOutcome, { kind: 'answered' }> };

/** The agents whose dependencies are all done and that are neither running nor done. */
export function readyAgents(plan: Plan, done: ReadonlySet<string>, running: ReadonlySet<string>): AgentTask[] {
  return plan.agents.filter((a) => !done.has(a.id) && !running.has(a.id) && a.dependencies.every((d) => done.has(d)));
}

/** 1, 2, 4 ... 60 seconds: about 25 minutes in all. */
const agentIdWaits = 30;

/**
 * Starts an agent's child workflow, waiting while its id is still taken: a Temporal reset does not
 * stop the agents the run it replaced had running, which finish on their own under the same ids the
 * reset's run starts its agents with.
 */
async function startingOnceFree<T>(start: () => Promise<T>): Promise<T> {
  for (let wait = 1; ; wait++) {
    try {
      return await start();
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError) || wait > agentIdWaits) throw err;
      const seconds = Math.min(2 ** (wait - 1), 60);
      await sleep(seconds * 1000, { summary: `the agent's workflow id is still taken by an earlier run's agent (wait ${wait} of ${agentIdWaits})` });
    }
  }
}

/**
 * The next running agent to end. A cancelled task cancels every running agent, and each records its
 * run's end before its workflow ends: the task waits for all of them, so that its own end terminates
 * none of them and Temporal shows each agent cancelled, as the store does.
 */
async function nextToEnd(running: Map<string, Promise<[string, AgentOutcome]>>): Promise<[string, AgentOutcome]> {
  try {
    return await Promise.race(running.values());
  } catch (err) {
    if (isCancellation(err)) await Promise.allSettled(running.values());
    throw err;
  }
}

/**
 * Runs a plan's agents as child workflows: every agent whose dependencies are met starts, at most
 * maxAgents at once, and receives its dependencies' results. The first agent that stops without an
 * answer stops the others.
 */
export async function runPlan(plan: Plan, context: PlanContext): Promise<PlanOutcome> {
  const { taskWorkflowId } = context.task;
  const results = new Map<string, string>();
  const truncated: string[] = [];
  const running = new Map<string, Promise<[string, AgentOutcome]>>();
  const view = (agentId: string) => context.agents.find((a) => a.agentId === agentId)!;
  const scope = new CancellationScope();

  const start = (agent: AgentTask) => {
    const input: AgentWorkflowInput = {
      ...context.task,
      agent,
      dependencyResults: agent.dependencies.map((id) => ({ agentId: id, result: results.get(id)! })),
      dangerousTools: context.dangerousTools,
      settings: context.settings,
    };
    view(agent.id).status = 'RUNNING';
    const child = scope.run(() =>
      startingOnceFree(() =>
        executeChild<typeof agentWorkflow>('agentWorkflow', {
          workflowId: agentWorkflowIdOf(taskWorkflowId, agent.id),
          args: [input],
          ...agentMetadata(agent, context.task),
          // A cancelled agent still records its run's end before the task records its own.
          cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
        }),
      ),
    );
    running.set(
      agent.id,
      child.then(
        (result): [string, AgentOutcome] => [agent.id, result],
        (err: unknown): [string, AgentOutcome] => {
          // The task being cancelled is the task's business; any other failure stops the plan.
          if (isCancellation(err)) throw err;
          return [agent.id, { kind: 'failed', message: failureMessageOf(err), state: { tokens: 0, costUsd: 0 } }];
        },
      ),
    );
  };

  for (;;) {
    await context.hold();
    for (const agent of readyAgents(plan, new Set(results.keys()), new Set(running.keys()))) {
      if (running.size >= Math.max(1, context.settings.maxAgents)) break;
      start(agent);
    }
    if (running.size === 0) break;
    const [agentId, result] = await nextToEnd(running);
    running.delete(agentId);
    const agent = view(agentId);
    agent.tokens = result.state.tokens;
    agent.costUsd = result.state.costUsd;
    if (result.kind !== 'answered') {
      agent.status = result.kind === 'over_budget' || result.kind === 'failed' ? 'FAILED' : 'CANCELLED';
      scope.cancel();
      // Let the other agents record their cancellation before the task ends.
      await Promise.allSettled(running.values());
      for (const other of running.keys()) view(other).status = 'CANCELLED';
      return { kind: 'stopped', agentId, result };
    }
    agent.status = 'COMPLETED';
    agent.result = result.text;
    results.set(agentId, result.text);
    if (result.truncated) truncated.push(agentId);
  }
  return { kind: 'completed', results: plan.agents.map((a) => ({ agentId: a.id, result: results.get(a.id)! })), truncated };
}
