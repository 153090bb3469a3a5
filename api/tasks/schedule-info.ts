import type { ScheduleView } from './schedules';

// A schedule in Shannon's field names, as both of its APIs give it: gRPC's ScheduleInfo and the
// REST body of /api/v1/schedules.

/** Shannon's ScheduleInfo, field for field. */
export interface ScheduleInfo {
  schedule_id: string;
  name: string;
  description: string;
  cron_expression: string;
  timezone: string;
  task_query: string;
  task_context: Record<string, string>;
  max_budget_per_run_usd: number;
  timeout_seconds: number;
  status: string;
  created_at: string;
  updated_at: string;
  last_run_at: string;
  next_run_at: string;
  total_runs: number;
  successful_runs: number;
  failed_runs: number;
  interval: string;
  overlap_policy: string;
  note: string;
  user_id: string;
}

export const rfc3339 = (date: Date | undefined) => date?.toISOString() ?? '';

/** A schedule in Shannon's ScheduleInfo; its task context's values as strings, as that map holds them. */
export function scheduleInfoOf(view: ScheduleView): ScheduleInfo {
  return {
    schedule_id: view.scheduleId,
    name: view.name,
    description: view.description,
    cron_expression: view.cronExpression,
    timezone: view.timezone,
    task_query: view.taskQuery,
    task_context: Object.fromEntries(Object.entries(view.taskContext).map(([key, value]) => [key, typeof value === 'string' ? value : JSON.stringify(value)])),
    max_budget_per_run_usd: view.maxBudgetPerRunUsd,
    timeout_seconds: view.timeoutSeconds,
    status: view.status,
    created_at: rfc3339(view.createdAt),
    updated_at: rfc3339(view.updatedAt),
    last_run_at: rfc3339(view.lastRunAt),
    next_run_at: rfc3339(view.nextRunAt),
    total_runs: view.totalRuns,
    successful_runs: view.successfulRuns,
    failed_runs: view.failedRuns,
    interval: view.interval,
    overlap_policy: view.overlapPolicy,
    note: view.note,
    user_id: view.userId,
  };
}
