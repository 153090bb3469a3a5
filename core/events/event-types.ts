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
  WorkflowCancelled: 'WORKFLOW_CANCELLED',
  WorkflowFailed: 'WORKFLOW_FAILED',
  WorkflowCompleted: 'WORKFLOW_COMPLETED',
  /** A model's text as it streams: live-only (never stored, never replayed), seq 0. */
  LlmPartial: 'LLM_PARTIAL',
} as const;
export type EventType = (typeof EventType)[keyof typeof EventType];
