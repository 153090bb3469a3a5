import type { OrchestratorServiceHandlers } from '../../../protos/generated/shannon/orchestrator/OrchestratorService';
import type { UpdateScheduleRequest__Output } from '../../../protos/generated/shannon/orchestrator/UpdateScheduleRequest';
import type { Authenticator } from '../../tasks/auth';
import { invalid } from '../../tasks/task-errors';
import { authorized } from '../unary';
import type { OverlapPolicy, ScheduleFields } from '../../tasks/schedule-spec';
import type { ScheduleService, ScheduleStatus } from '../../tasks/schedules';
import { taskSummaryOf } from './task-listing';
import { rfc3339, scheduleInfoOf } from '../../tasks/schedule-info';

// OrchestratorService's schedule RPCs, in the shapes of Shannon's published proto (and Weft's
// fields from 20 on), over the schedules every door shares (schedules.ts).

/** A map<string, string> context's values: JSON where they parse as JSON (numbers, booleans), else the text. */
function contextOf(context: Record<string, string>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(context).map(([key, text]) => {
      try {
        return [key, JSON.parse(text) as unknown];
      } catch {
        return [key, text];
      }
    }),
  );
}

/** Shannon's page and page_size (1-based, 50 by default, 100 at most). */
function pageOf(request: { page: number; page_size: number }) {
  if (request.page < 0 || request.page_size < 0) throw invalid('page and page_size must be >= 0');
  if (request.page_size > 100) throw invalid('page_size must be <= 100');
  const page = request.page || 1;
  const pageSize = request.page_size || 50;
  return { page, pageSize, limit: pageSize, offset: (page - 1) * pageSize };
}

const statuses = ['ACTIVE', 'PAUSED', 'DELETED'];

function statusFilterOf(status: string): ScheduleStatus | undefined {
  if (status === '' || status === 'ALL') return undefined;
  if (!statuses.includes(status)) throw invalid(`status must be one of ${[...statuses, 'ALL'].join(', ')}`);
  return status as ScheduleStatus;
}

/** An update's fields: only those it sets. */
function changeOf(request: UpdateScheduleRequest__Output): Partial<ScheduleFields> {
  const set = <K extends keyof UpdateScheduleRequest__Output>(key: K) => request[`_${String(key)}` as keyof UpdateScheduleRequest__Output] === key;
  return {
    ...(set('name') ? { name: request.name! } : {}),
    ...(set('description') ? { description: request.description! } : {}),
    ...(set('cron_expression') ? { cronExpression: request.cron_expression! } : {}),
    ...(set('interval') ? { interval: request.interval! } : {}),
    ...(set('timezone') ? { timezone: request.timezone! } : {}),
    ...(set('task_query') ? { taskQuery: request.task_query! } : {}),
    ...(request.clear_task_context
      ? { taskContext: {} }
      : Object.keys(request.task_context).length > 0
        ? { taskContext: contextOf(request.task_context) }
        : {}),
    ...(set('max_budget_per_run_usd') ? { maxBudgetPerRunUsd: request.max_budget_per_run_usd! } : {}),
    ...(set('timeout_seconds') ? { timeoutSeconds: request.timeout_seconds! } : {}),
    ...(set('overlap_policy') ? { overlapPolicy: request.overlap_policy! as OverlapPolicy } : {}),
  };
}

type ScheduleHandlers = Pick<
  OrchestratorServiceHandlers,
  'CreateSchedule' | 'GetSchedule' | 'ListSchedules' | 'UpdateSchedule' | 'DeleteSchedule' | 'PauseSchedule' | 'ResumeSchedule' | 'ListScheduleRuns'
>;

export function scheduleHandlers(deps: { auth: Authenticator; schedules: ScheduleService }): ScheduleHandlers {
  const { schedules } = deps;
  return {
    CreateSchedule: authorized(deps.auth, async (request, principal) => {
      const view = await schedules.create(
        principal,
        {
          name: request.name,
          description: request.description,
          cronExpression: request.cron_expression,
          interval: request.interval,
          timezone: request.timezone || 'UTC',
          taskQuery: request.task_query,
          taskContext: contextOf(request.task_context),
          maxBudgetPerRunUsd: request.max_budget_per_run_usd,
          timeoutSeconds: request.timeout_seconds,
          overlapPolicy: (request.overlap_policy || 'SKIP') as OverlapPolicy,
        },
        { paused: request.paused },
      );
      return { schedule_id: view.scheduleId, message: 'schedule created', next_run_at: rfc3339(view.nextRunAt) };
    }),
    GetSchedule: authorized(deps.auth, async (request, principal) => ({ schedule: scheduleInfoOf(await schedules.get(principal, request.schedule_id)) })),
    ListSchedules: authorized(deps.auth, async (request, principal) => {
      const page = pageOf(request);
      const listed = await schedules.list(principal, page, statusFilterOf(request.status));
      return { schedules: listed.schedules.map(scheduleInfoOf), total_count: listed.total, page: page.page, page_size: page.pageSize };
    }),
    UpdateSchedule: authorized(deps.auth, async (request, principal) => {
      const view = await schedules.update(principal, request.schedule_id, changeOf(request));
      return { success: true, message: 'schedule updated', next_run_at: rfc3339(view.nextRunAt) };
    }),
    DeleteSchedule: authorized(deps.auth, async (request, principal) => {
      await schedules.delete(principal, request.schedule_id);
      return { success: true, message: 'schedule deleted' };
    }),
    PauseSchedule: authorized(deps.auth, async (request, principal) => {
      await schedules.pause(principal, request.schedule_id, request.reason);
      return { success: true, message: 'schedule paused' };
    }),
    ResumeSchedule: authorized(deps.auth, async (request, principal) => {
      const view = await schedules.resume(principal, request.schedule_id, request.reason);
      return { success: true, message: 'schedule resumed', next_run_at: rfc3339(view.nextRunAt) };
    }),
    ListScheduleRuns: authorized(deps.auth, async (request, principal) => {
      const page = pageOf(request);
      const { runs, total } = await schedules.runs(principal, request.schedule_id, page);
      return { runs: runs.map(taskSummaryOf), total_count: total, page: page.page, page_size: page.pageSize };
    }),
  };
}
