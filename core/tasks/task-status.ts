// Task statuses as stored in the task index; names match the seed's TaskStatus enum without prefix.
export const TaskStatus = {
  Queued: 'QUEUED',
  Running: 'RUNNING',
  Completed: 'COMPLETED',
  Failed: 'FAILED',
  Cancelled: 'CANCELLED',
  Timeout: 'TIMEOUT',
} as const;
export type TaskStatus = (typeof TaskStatus)[keyof typeof TaskStatus];

export const ExecutionMode = {
  Simple: 'SIMPLE',
  Standard: 'STANDARD',
  Complex: 'COMPLEX',
} as const;
export type ExecutionMode = (typeof ExecutionMode)[keyof typeof ExecutionMode];
