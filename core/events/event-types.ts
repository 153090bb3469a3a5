// The task event catalog (seed 000's StreamTaskExecution types plus what a user would expect).
export const EventType = {
  WorkflowStarted: 'WORKFLOW_STARTED',
  StatusUpdate: 'STATUS_UPDATE',
  DecompositionCompleted: 'DECOMPOSITION_COMPLETED',
  ApprovalRequested: 'APPROVAL_REQUESTED',
  ApprovalDecision: 'APPROVAL_DECISION',
  AgentStarted: 'AGENT_STARTED',
  AgentThinking: 'AGENT_THINKING',
  ToolInvoked: 'TOOL_INVOKED',
  ToolObservation: 'TOOL_OBSERVATION',
  AgentCompleted: 'AGENT_COMPLETED',
  AgentFailed: 'AGENT_FAILED',
  BudgetExceeded: 'BUDGET_EXCEEDED',
  ErrorOccurred: 'ERROR_OCCURRED',
  WorkflowPaused: 'WORKFLOW_PAUSED',
  /** A person's message to the running task, which its agents get at their next step. */
  MessageReceived: 'MESSAGE_RECEIVED',
  WorkflowResumed: 'WORKFLOW_RESUMED',
  /** A person's feedback on a plan under review (Shannon's name). */
  ReviewUserFeedback: 'REVIEW_USER_FEEDBACK',
  /** A plan under review, first proposed or revised with a person's feedback (Shannon's name). */
  ResearchPlanUpdated: 'RESEARCH_PLAN_UPDATED',
  WorkflowCancelled: 'WORKFLOW_CANCELLED',
  WorkflowFailed: 'WORKFLOW_FAILED',
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
