// Who a task is for, and which run of the store a write belongs to. These travel whole: an input
// that names a task extends TaskRef, one that names a run extends RunRef.

/** A task and its caller: the identity every write of the task is scoped by. */
export interface TaskRef {
  taskId: string;
  tenantId: string;
  userId: string;
  /** The submitting caller's roles: the tool policy reads them (absent in tasks started before they were passed on). */
  roles?: string[];
  /** '' when the task runs outside a session. */
  sessionId: string;
  /** The key's user when it submitted the task for userId (the act_for_users role). */
  submittedBy?: string;
}

/**
 * A run of the runtime store: the task's own run, or an agent's child run. `runAgentId` is the
 * store's agent of the run ('weft.task', 'weft.agent.<id>'); `agentId` elsewhere is always the
 * task's agent as users see it ('main', 'synthesis', or a plan's agent id).
 */
export interface RunRef {
  runId: string;
  runAgentId: string;
}

/** The store's agent of a task's own run. */
export const TASK_RUN_AGENT_ID = 'weft.task';

/** The store's agent of a COMPLEX task's agent run. */
export const agentRunAgentId = (agentId: string) => `weft.agent.${agentId}`;

/** The task's agents that are not in a plan. */
export const TaskAgent = {
  /** The single agent of a SIMPLE or STANDARD task. */
  Main: 'main',
  /** The step that combines a COMPLEX task's results. */
  Synthesis: 'synthesis',
  /** Complexity analysis and decomposition. */
  Router: 'router',
  /** The step that distils a completed task's answer into its user's memory. */
  Memory: 'memory',
} as const;

/**
 * The workflow a task runs as. Its id is the task id: a repeated submit of the task finds the same
 * workflow (REJECT_DUPLICATE), so the two ids are one value by design, named here once.
 */
export const taskWorkflowIdOf = (taskId: string) => taskId;

/**
 * A task's first run is keyed by its workflow id: the run id, the workflow id and the stream the
 * task's events go to are one value, named here once. A reset gives the task a new run (resetRunIdOf).
 */
export function taskRunOf(runId: string): RunRef {
  return { runId, runAgentId: TASK_RUN_AGENT_ID };
}

/**
 * A task's store run as an input names it: the run given, or (an input from before a reset could
 * give the task another run) the task's first, keyed by its workflow id.
 */
export const taskRunIdOr = (runId: string | undefined, taskWorkflowId: string) => runId ?? taskWorkflowId;

/**
 * The store run a Temporal reset gives a task: the reset's Temporal run writes its own, linked to
 * the run it continues, so both runs' records are kept. Its agents' runs carry the same scope.
 */
export const resetRunIdOf = (workflowId: string, temporalRunId: string) => `${workflowId}/reset/${temporalRunId}`;

/** What sets a reset's runs apart (their ending 'reset/<temporal run>'), '' for a run no reset made. */
export function resetScopeOf(runId: string): string {
  return /\/(reset\/[^/]+)$/.exec(runId)?.[1] ?? '';
}

/** An agent's run: its child workflow's id, in the scope of the task run that started it. */
export function agentRunIdOf(agentWorkflowId: string, taskRunId: string): string {
  const scope = resetScopeOf(taskRunId);
  return scope ? `${agentWorkflowId}/${scope}` : agentWorkflowId;
}

/**
 * The key of an event a run writes: a reset's runs key theirs apart, so the reset's approvals,
 * agents and end are told on the task's stream again rather than taken for retries of the first.
 */
export function runEventKey(runId: string, key: string): string {
  const scope = resetScopeOf(runId);
  return scope ? `${scope}/${key}` : key;
}

/** The identity fields of anything that carries a task, and nothing else. */
export function taskRefOf(source: TaskRef): TaskRef {
  return {
    taskId: source.taskId,
    tenantId: source.tenantId,
    userId: source.userId,
    ...(source.roles ? { roles: source.roles } : {}),
    sessionId: source.sessionId,
    ...(source.submittedBy ? { submittedBy: source.submittedBy } : {}),
  };
}
