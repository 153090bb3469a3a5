import type { ExecutionMode } from '../core/orchestration/complexity';
import type { Plan } from '../core/orchestration/plan';
import type { ToolSummary } from '../core/tasks/run/task-lifecycle';
import type { TaskFork } from '../core/tasks/run/forked-steps';
import type { TaskEval } from '../core/tasks/run/eval-tools';
import type { TaskRef } from '../core/tasks/run/task-ref';
import type { AwaitApproval } from './approval-gate';
import type { AgentLoopState } from './agent-loop';
import type { TaskMessage } from './messages';
import type { TaskReport } from './task-state';
import type { TaskOutcome } from './task-outcomes';
import type { TaskSettings } from './settings';
import type { ResetProgress, TaskScope } from './task-scope';
import type { ClientTool } from '../core/tasks/run/step-types';

// taskWorkflow's contract (its input and result) and what its parts share, apart from its code so
// the parts can name them without importing the workflow.

/** `taskId` is '' in a schedule's action: each run is the task its workflow id names. */
export interface TaskWorkflowInput extends TaskRef {
  query: string;
  /** False: never decompose (STANDARD). True: complexity analysis picks the mode. */
  autoDecompose: boolean;
  /** The caller's plan: runs as COMPLEX without analysis. */
  manualPlan?: Plan;
  requireApproval: boolean;
  /** The plan is reviewed in rounds before it runs (plan-review.ts): the planner makes one, without complexity analysis. */
  reviewPlan?: boolean;
  settings: TaskSettings;
  /** Only these tools are offered (AgentService's available_tools); all registered ones when absent. */
  allowedTools?: string[];
  /** The skill the task named: its instructions are the system prompt of the task's one agent. */
  skill?: { name: string; version: string; instructions: string };
  /** The caller's own system prompt for the task's one agent (an OpenAI client's system messages), after a skill's. */
  instructions?: string;
  /** Tools the task's OpenAI client declares and runs itself: offered to its one agent, their calls passed back to the client. */
  clientTools?: ClientTool[];
  /** A task that is one tool call, run as an agent's call is (policy, limits, record): Shannon's POST /api/v1/tools/{name}/execute. */
  directTool?: { name: string; arguments: Record<string, unknown> };
  /** Set when the task is a fork of another: its steps before fork.fromStep reuse what that task recorded. */
  fork?: TaskFork;
  /** Set when the task is one case of an eval (`weft eval`): it runs a recorded task again, its tool calls answered from the record. */
  eval?: TaskEval;
  /** The template whose plan the task runs (name@version), so an eval can find a template's last runs. */
  template?: string;
  /**
   * Set when a single-agent task continues in a fresh history: `runId` is the task's store run
   * (absent from before a reset could make it other than the workflow's id), `reset` the claim of a
   * reset's run that continued before any of its activities could hand the task over.
   */
  resume?: { tools: ToolSummary[]; loop: AgentLoopState; runId?: string; reset?: ResetProgress };
}

export interface TaskWorkflowResult {
  status: TaskOutcome['status'];
  code?: 'BUDGET_EXCEEDED';
  mode: ExecutionMode | '';
  result: string;
  errorMessage: string;
  modelUsed: string;
  tokens: number;
  costUsd: number;
}

/** What the parts of a task's run share: fixed for the workflow run; what they change, they report (task-state.ts). */
export interface TaskContext {
  readonly input: TaskWorkflowInput;
  /** The task, its caller, its workflow and the store run this workflow run writes. */
  readonly task: TaskScope;
  /** The tools the task offers. */
  tools(): readonly ToolSummary[];
  readonly awaitApproval: AwaitApproval;
  /** Awaited at every step boundary: holds while the task is paused. */
  hold(): Promise<void> | undefined;
  /** People's messages for the task's own next model step. */
  takeMessages(): TaskMessage[];
  readonly report: TaskReport;
}

/** taskWorkflow's signature, for continuing it as new from its parts. */
export type TaskWorkflowFunction = (input: TaskWorkflowInput) => Promise<TaskWorkflowResult>;
