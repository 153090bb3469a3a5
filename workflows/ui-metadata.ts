import type { AgentTask } from '../core/orchestration/plan';
import type { TaskScope } from './task-scope';
import type { TaskWorkflowInput } from './task-workflow-types';

// What Temporal's Web UI and CLI show for Weft's workflows (their user metadata, in Temporal
// markdown): a task or agent reads as what it is, not as a bare id. The API sets a task's; the
// task workflow sets its agents'.

/** `text` on one line, at most `max` characters. */
export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export interface WorkflowMetadata {
  staticSummary: string;
  staticDetails: string;
}

const requestedMode = (input: TaskWorkflowInput) =>
  input.manualPlan ? "COMPLEX (caller's plan)" : input.autoDecompose ? 'chosen by complexity analysis' : 'STANDARD';

export function taskMetadata(input: TaskWorkflowInput): WorkflowMetadata {
  return {
    staticSummary: `${input.eval ? `eval ${input.eval.evalId} case` : 'task'} of ${input.userId || 'anonymous'}: ${oneLine(input.query, 120)}`,
    staticDetails: [
      `**Query**: ${oneLine(input.query, 2000)}`,
      '',
      `Tenant \`${input.tenantId}\`, user \`${input.userId}\`${input.sessionId ? `, session \`${input.sessionId}\`` : ''}`,
      '',
      `Mode: ${requestedMode(input)}; approval ${input.requireApproval ? 'required' : 'when the plan or cost calls for it'}`,
      ...(input.fork ? ['', `Forked from \`${input.fork.fromTaskId}\` at step ${input.fork.fromStep}`] : []),
      ...(input.eval ? ['', `Eval \`${input.eval.evalId}\` of \`${input.eval.fromTaskId}\`: tool calls answered from its record`] : []),
    ].join('\n'),
  };
}

export function agentMetadata(agent: AgentTask, task: TaskScope): WorkflowMetadata {
  return {
    staticSummary: `agent ${agent.id} of ${task.taskWorkflowId}: ${oneLine(agent.description, 100)}`,
    staticDetails: [
      `**Agent** \`${agent.id}\` of task \`${task.taskId}\` (tenant \`${task.tenantId}\`, user \`${task.userId}\`)`,
      '',
      `**Role**: ${oneLine(agent.description, 1000)}`,
      '',
      `Tier ${agent.tier}; tools: ${agent.tools.join(', ') || 'none'}; after: ${agent.dependencies.join(', ') || 'nothing'}`,
    ].join('\n'),
  };
}
