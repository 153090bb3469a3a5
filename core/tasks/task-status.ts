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

export type { ExecutionMode } from '../orchestration/complexity';
