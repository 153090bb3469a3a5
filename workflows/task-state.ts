import { upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { ExecutionMode } from '../core/orchestration/complexity';
import type { ToolSummary } from '../core/tasks/run/task-lifecycle';
import type { AgentView, TaskView } from './messages';
import { executionModeKey } from './search-attributes';

/** How the parts of a task's run tell the task workflow what happened: only the task workflow changes its state. */
export interface TaskReport {
  /** The mode routing chose: in the view and the WeftExecutionMode search attribute. */
  mode(mode: ExecutionMode): void;
  progress(fraction: number): void;
  /** What a step spent, added to the task's. */
  spent(tokens: number, costUsd: number): void;
  /** The tools the task offers: from its start, or its first model step when that recorded the start. */
  toolsOffered(tools: ToolSummary[]): void;
  /** The plan's agents: the plan runner keeps their views (plan-runner.ts). */
  planned(agents: AgentView[]): void;
}

/**
 * The task's state, held by its workflow: the view the taskStatus query shows and the tools the task
 * offers. The API starts the workflow with its mode already set: it is upserted only when routing changes it.
 */
export function createTaskState() {
  const view: TaskView = { status: 'RUNNING', mode: '', progress: 0, agents: [], tokens: 0, costUsd: 0 };
  let tools: ToolSummary[] = [];
  const report: TaskReport = {
    mode(mode) {
      view.mode = mode;
      if (workflowInfo().typedSearchAttributes.get(executionModeKey) === mode) return;
      upsertSearchAttributes([{ key: executionModeKey, value: mode }]);
    },
    progress: (fraction) => void (view.progress = fraction),
    spent(tokens, costUsd) {
      view.tokens += tokens;
      view.costUsd += costUsd;
    },
    toolsOffered: (offered) => void (tools = offered),
    planned: (agents) => void (view.agents = agents),
  };
  return { view, tools: (): readonly ToolSummary[] => tools, report };
}
