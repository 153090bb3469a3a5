import { ScheduleOverlapPolicy, type ScheduleDescription, type ScheduleSpec } from '@temporalio/client';
import type { Duration } from '@temporalio/common';
import { msToNumber } from '@temporalio/common/lib/time';
import { invalid } from './task-errors';

// What a schedule is, as its owner gives it (Shannon's fields, and Temporal's interval and overlap
// policy), checked, and turned into a Temporal Schedule's spec and policies; and what a schedule is
// as Temporal describes it, which an operator may have changed in the Web UI or the CLI.

export type OverlapPolicy = NonNullable<ScheduleOverlapPolicy>;
export const overlapPolicies = Object.values(ScheduleOverlapPolicy).filter((policy): policy is OverlapPolicy => policy !== undefined);

/** A schedule's fields as a create or an update gives them; an update leaves out what it does not change. */
export interface ScheduleFields {
  name: string;
  description: string;
  /** Five fields (minute hour day-of-month month day-of-week), or Temporal's @-forms; '' when it runs on an interval. */
  cronExpression: string;
  /** Every so long ("30m", "6h", "1d"); '' when it runs on the cron expression. */
  interval: string;
  /** IANA time zone the cron expression is read in. */
  timezone: string;
  taskQuery: string;
  /** The task's context, as SubmitTask's (model_tier, template, cost_limit_usd, ...). */
  taskContext: Record<string, unknown>;
  /** 0: the tenant's default. */
  maxBudgetPerRunUsd: number;
  /** 0: no limit; otherwise the run's workflow times out after it. */
  timeoutSeconds: number;
  /** What a run due while the last one still runs does: SKIP (the default), BUFFER_ONE, ALLOW_ALL, ... */
  overlapPolicy: OverlapPolicy;
}

const maxNameChars = 200;
const maxDescriptionChars = 2_000;
const maxTimeoutSeconds = 7 * 24 * 3600;
/** Runs more often than this would be a task storm, not a schedule. */
const minIntervalMs = 60_000;

function checkTimezone(timezone: string): void {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
  } catch {
    throw invalid(`timezone ${JSON.stringify(timezone)} is not an IANA time zone (like "UTC" or "Europe/Paris")`);
  }
}

function checkInterval(interval: string): void {
  let every: number;
  try {
    every = msToNumber(interval as Duration);
  } catch {
    every = Number.NaN;
  }
  if (!Number.isFinite(every)) throw invalid(`interval ${JSON.stringify(interval)} is not a duration like "30m", "6h" or "1d"`);
  if (every < minIntervalMs) throw invalid(`interval ${interval} is shorter than one minute`);
}

/** Checks a whole schedule (a create, or an update merged onto what was there). */
export function checkScheduleFields(fields: ScheduleFields): void {
  if (fields.name.trim() === '') throw invalid('name is required');
  if (fields.name.length > maxNameChars) throw invalid(`name is longer than ${maxNameChars} characters`);
  if (fields.description.length > maxDescriptionChars) throw invalid(`description is longer than ${maxDescriptionChars} characters`);
  if (!fields.cronExpression === !fields.interval) throw invalid('give one of cron_expression and interval');
  if (fields.interval) checkInterval(fields.interval);
  if (/^\s*(CRON_)?TZ=/.test(fields.cronExpression)) throw invalid('give the time zone in timezone, not in cron_expression');
  checkTimezone(fields.timezone);
  if (fields.taskQuery.trim() === '') throw invalid('task_query is required');
  if (!Number.isFinite(fields.maxBudgetPerRunUsd) || fields.maxBudgetPerRunUsd < 0) throw invalid('max_budget_per_run_usd must be >= 0');
  if (!Number.isInteger(fields.timeoutSeconds) || fields.timeoutSeconds < 0 || fields.timeoutSeconds > maxTimeoutSeconds) {
    throw invalid(`timeout_seconds must be a whole number from 0 to ${maxTimeoutSeconds}`);
  }
  if (!overlapPolicies.includes(fields.overlapPolicy)) throw invalid(`overlap_policy must be one of ${overlapPolicies.join(', ')}`);
}

/** When the schedule's runs are due, as Temporal takes it. */
export const temporalSpecOf = (fields: ScheduleFields): ScheduleSpec =>
  fields.interval
    ? { intervals: [{ every: fields.interval as Duration }], timezone: fields.timezone }
    : { cronExpressions: [fields.cronExpression], timezone: fields.timezone };

/** What Weft keeps of a schedule as its owner gave it (core/schedules/schedule-index.ts), since Temporal keeps a cron expression only as calendars. */
export type GivenFields = Pick<ScheduleFields, 'cronExpression' | 'interval' | 'taskContext' | 'maxBudgetPerRunUsd' | 'timeoutSeconds'>;

export const givenFieldsOf = (fields: ScheduleFields): GivenFields => ({
  cronExpression: fields.cronExpression,
  interval: fields.interval,
  taskContext: fields.taskContext,
  maxBudgetPerRunUsd: fields.maxBudgetPerRunUsd,
  timeoutSeconds: fields.timeoutSeconds,
});

/** How Temporal describes the schedule now: paused or not (and why), its runs' times, its time zone, overlap policy and task. */
export interface ScheduleState {
  paused: boolean;
  note: string;
  timezone: string;
  overlapPolicy: OverlapPolicy;
  taskQuery: string;
  lastRunAt?: Date;
  nextRunAt?: Date;
  totalRuns: number;
  createdAt: Date;
  updatedAt?: Date;
}

export function scheduleStateOf(description: ScheduleDescription): ScheduleState {
  const args: readonly unknown[] = (description.action.type === 'startWorkflow' ? description.action.args : undefined) ?? [];
  const input = (args[0] ?? {}) as { query?: string };
  const last = description.info.recentActions.at(-1);
  const next = description.info.nextActionTimes[0];
  return {
    paused: description.state.paused,
    note: description.state.note ?? '',
    timezone: description.spec.timezone ?? 'UTC',
    overlapPolicy: (description.policies.overlap ?? 'SKIP') as OverlapPolicy,
    taskQuery: input.query ?? '',
    ...(last ? { lastRunAt: last.takenAt } : {}),
    ...(next ? { nextRunAt: next } : {}),
    totalRuns: description.info.numActionsTaken,
    createdAt: description.info.createdAt,
    ...(description.info.lastUpdatedAt ? { updatedAt: description.info.lastUpdatedAt } : {}),
  };
}
