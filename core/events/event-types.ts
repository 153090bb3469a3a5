// The task event catalog (seed 000's StreamTaskExecution types plus what a user would expect).
export const EventType = {
  /** The task's run started: the first event of every task. */
  WorkflowStarted: 'WORKFLOW_STARTED',
  /** Progress in words: the routing decision and why, a step reused from a record, a reset's handover, a plan review's state. */
  StatusUpdate: 'STATUS_UPDATE',
  /** A COMPLEX task's plan is made: its agents, their dependencies, tools and tiers (in the payload). */
  DecompositionCompleted: 'DECOMPOSITION_COMPLETED',
  /** The task waits for a person: the approval id, what is proposed and why. */
  ApprovalRequested: 'APPROVAL_REQUESTED',
  /** An approval was decided: by whom, and how it came (api, signal or update). */
  ApprovalDecision: 'APPROVAL_DECISION',
  /** An agent took its first model step. */
  AgentStarted: 'AGENT_STARTED',
  /** Part of the streaming catalog clients may filter on; no step of Weft emits it (a model's text streams as LLM_PARTIAL). */
  AgentThinking: 'AGENT_THINKING',
  /** An agent called a tool (the tool and its arguments). */
  ToolInvoked: 'TOOL_INVOKED',
  /** A tool call's result, or a person's answer about a call whose outcome was unknown. */
  ToolObservation: 'TOOL_OBSERVATION',
  /** An agent finished with its answer. */
  AgentCompleted: 'AGENT_COMPLETED',
  /** An agent failed, with the reason. */
  AgentFailed: 'AGENT_FAILED',
  /** A step the task's, agent's or tenant's budget could not take was not made; the task ends BUDGET_EXCEEDED (usage in the payload). */
  BudgetExceeded: 'BUDGET_EXCEEDED',
  /** An error a reader should see: an answer still cut off, an approval decision that was ignored, the error a task ended with. */
  ErrorOccurred: 'ERROR_OCCURRED',
  /** The task was paused: it starts no new step until resumed. */
  WorkflowPaused: 'WORKFLOW_PAUSED',
  /** A person's message to the running task, which its agents get at their next step. */
  MessageReceived: 'MESSAGE_RECEIVED',
  /** The task was resumed. */
  WorkflowResumed: 'WORKFLOW_RESUMED',
  /** A person's feedback on a plan under review (Shannon's name). */
  ReviewUserFeedback: 'REVIEW_USER_FEEDBACK',
  /** A plan under review, first proposed or revised with a person's feedback (Shannon's name). */
  ResearchPlanUpdated: 'RESEARCH_PLAN_UPDATED',
  /** The task's final event when it was cancelled (a cancel, a rejected approval, its session ended). */
  WorkflowCancelled: 'WORKFLOW_CANCELLED',
  /** The task's final event when it failed, timed out or ran out of budget. */
  WorkflowFailed: 'WORKFLOW_FAILED',
  /** The task's final event when it completed. */
  WorkflowCompleted: 'WORKFLOW_COMPLETED',
  /** A model's text as it streams: live-only (never stored, never replayed, seq 0), unless the task records its partials (TaskSettings.recordPartials). */
  LlmPartial: 'LLM_PARTIAL',
} as const;
export type EventType = (typeof EventType)[keyof typeof EventType];

/**
 * Shannon's event types that Weft does not emit. A stream filter may name them (Shannon's clients
 * filter by its catalog, LLM_OUTPUT say); they match nothing. Any other unknown type is refused.
 */
export const shannonOnlyEventTypes: readonly string[] = [
  'LLM_PROMPT',
  'LLM_OUTPUT',
  'PROGRESS',
  'DATA_PROCESSING',
  'DELEGATION',
  'TEAM_RECRUITED',
  'TEAM_RETIRED',
  'ROLE_ASSIGNED',
  'TEAM_STATUS',
  'MESSAGE_SENT',
  'WAITING',
  'WORKSPACE_UPDATED',
  'ERROR_RECOVERY',
  'DEPENDENCY_SATISFIED',
  'BUDGET_THRESHOLD',
  'workflow.pausing',
  'workflow.cancelling',
  'thread.message.delta',
  'thread.message.completed',
];

/** Shannon's names for events Weft emits under its own: a filter naming one gets Weft's. */
export const shannonEventAliases: Readonly<Record<string, EventType>> = {
  'workflow.paused': EventType.WorkflowPaused,
  'workflow.resumed': EventType.WorkflowResumed,
  'workflow.cancelled': EventType.WorkflowCancelled,
};
