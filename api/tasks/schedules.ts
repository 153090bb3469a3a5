import { randomUUID } from 'node:crypto';
import { ScheduleNotFoundError, type Client, type ScheduleDescription } from '@temporalio/client';
import type { Pool } from 'pg';
import type { Principal } from '../../core/auth/api-keys';
import { deleteSchedule, findSchedule, insertSchedule, listSchedules, updateScheduleRecord, type ScheduleRecord } from '../../core/schedules/schedule-index';
import { countTaskOutcomes, listTasks, type TaskRecord } from '../../core/tasks/task-index';
import { tenantIdKey, userIdKey } from '../../workflows/search-attributes';
import type { TaskWorkflowInput } from '../../workflows/task-workflow-types';
import { taskMetadata } from '../../workflows/ui-metadata';
import { hasRole } from './auth';
import { invalid, notFound } from './task-errors';
import {
  checkScheduleFields,
  givenFieldsOf,
  scheduleStateOf,
  temporalSpecOf,
  type GivenFields,
  type ScheduleFields,
  type ScheduleState,
} from './schedule-spec';
import { taskPriority, taskSearchAttributes } from './task-start';
import { taskInputFrom, type SubmissionLimits } from './task-submission';

// Schedules on Temporal Schedules, for every door (gRPC's schedule RPCs, Shannon's /api/v1/schedules,
// the weft CLI through gRPC). A schedule is a Temporal Schedule whose action starts taskWorkflow
// with the task's input; each run is a Weft task whose id is the run's workflow id, owned by the
// schedule's owner. Weft keeps the owner and what Temporal does not keep as given; when it runs,
// whether it is paused, and its runs are Temporal's, so a change made in the Web UI or with
// `temporal schedule` is what Weft reports. The owner, or an admin of the tenant, may see and change it.

export interface ScheduleDeps {
  temporal: Client;
  pool: Pool;
  taskQueue: string;
  limits: SubmissionLimits;
}

export type ScheduleStatus = 'ACTIVE' | 'PAUSED' | 'DELETED';

/** A schedule as every door shows it. */
export interface ScheduleView extends ScheduleFields {
  scheduleId: string;
  userId: string;
  status: ScheduleStatus;
  /** Why it was paused or resumed last (Temporal's note). */
  note: string;
  createdAt: Date;
  updatedAt: Date;
  lastRunAt?: Date;
  nextRunAt?: Date;
  totalRuns: number;
  successfulRuns: number;
  failedRuns: number;
}

const newScheduleId = () => `sched-${randomUUID()}`;

/** A schedule's runs are the tasks named by its workflow id and the time of the run (Temporal's naming). */
const runPrefixOf = (scheduleId: string) => `${scheduleId}-`;

/** The task each run starts: its id is left to the run's workflow id (workflows/task-workflow.ts). */
function taskInputOf(deps: ScheduleDeps, principal: Principal, fields: ScheduleFields): TaskWorkflowInput {
  const context = { ...fields.taskContext, ...(fields.maxBudgetPerRunUsd > 0 ? { cost_limit_usd: fields.maxBudgetPerRunUsd } : {}) };
  return taskInputFrom({ query: fields.taskQuery, context }, { taskId: '', principal }, deps.limits);
}

function scheduleOptionsOf(deps: ScheduleDeps, principal: Principal, scheduleId: string, fields: ScheduleFields) {
  const input = taskInputOf(deps, principal, fields);
  return {
    spec: temporalSpecOf(fields),
    action: {
      type: 'startWorkflow' as const,
      workflowType: 'taskWorkflow',
      workflowId: scheduleId,
      taskQueue: deps.taskQueue,
      args: [input],
      ...taskMetadata(input),
      typedSearchAttributes: taskSearchAttributes(input),
      ...taskPriority(input),
      ...(fields.timeoutSeconds > 0 ? { workflowExecutionTimeout: fields.timeoutSeconds * 1000 } : {}),
    },
    policies: { overlap: fields.overlapPolicy, catchupWindow: '1 minute' },
  };
}

/** gRPC's INVALID_ARGUMENT, the status of Temporal's server refusing a field. */
const temporalInvalidArgument = 3;

/**
 * Temporal's refusal of a spec (a cron expression it cannot parse, say) is the caller's error: the
 * client throws it as a TypeError ("Invalid schedule spec"), or as a ServiceError for other fields.
 */
async function refusedAsInvalid<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    const refused = err instanceof TypeError || (err as { cause?: { code?: number } }).cause?.code === temporalInvalidArgument;
    if (refused) throw invalid(`Temporal refused the schedule: ${(err as Error).message}`);
    throw err;
  }
}

async function describeOrDeleted(deps: ScheduleDeps, scheduleId: string): Promise<ScheduleDescription | undefined> {
  try {
    return await deps.temporal.schedule.getHandle(scheduleId).describe();
  } catch (err) {
    if (err instanceof ScheduleNotFoundError) return undefined;
    throw err;
  }
}

async function runCounts(deps: ScheduleDeps, record: ScheduleRecord): Promise<Pick<ScheduleView, 'successfulRuns' | 'failedRuns'>> {
  const { completed, failed } = await countTaskOutcomes(deps.pool, record.tenantId, runPrefixOf(record.scheduleId));
  return { successfulRuns: completed, failedRuns: failed };
}

function viewOf(record: ScheduleRecord, state: ScheduleState | undefined, counts: Pick<ScheduleView, 'successfulRuns' | 'failedRuns'>): ScheduleView {
  const given = record.given as unknown as GivenFields;
  return {
    scheduleId: record.scheduleId,
    userId: record.userId,
    name: record.name,
    description: record.description,
    ...given,
    timezone: state?.timezone ?? 'UTC',
    taskQuery: state?.taskQuery ?? '',
    overlapPolicy: state?.overlapPolicy ?? 'SKIP',
    status: !state ? 'DELETED' : state.paused ? 'PAUSED' : 'ACTIVE',
    note: state?.note ?? '',
    createdAt: record.createdAt,
    updatedAt: state?.updatedAt && state.updatedAt > record.updatedAt ? state.updatedAt : record.updatedAt,
    ...(state?.lastRunAt ? { lastRunAt: state.lastRunAt } : {}),
    ...(state?.nextRunAt && !state.paused ? { nextRunAt: state.nextRunAt } : {}),
    totalRuns: state?.totalRuns ?? counts.successfulRuns + counts.failedRuns,
    ...counts,
  };
}

async function viewOfRecord(deps: ScheduleDeps, record: ScheduleRecord): Promise<ScheduleView> {
  const [description, counts] = await Promise.all([describeOrDeleted(deps, record.scheduleId), runCounts(deps, record)]);
  return viewOf(record, description && scheduleStateOf(description), counts);
}

/** The schedule, if the caller may see it: its owner's, or any of the tenant's for an admin. Another tenant's is not found. */
async function ownSchedule(deps: ScheduleDeps, principal: Principal, scheduleId: string): Promise<ScheduleRecord> {
  const record = await findSchedule(deps.pool, principal.tenantId, scheduleId);
  if (!record || (record.userId !== principal.userId && !hasRole(principal, 'admin'))) throw notFound(`schedule ${scheduleId} not found`);
  return record;
}

/** A schedule that is still a Temporal Schedule: one deleted there can only be deleted here too. */
async function liveSchedule(deps: ScheduleDeps, principal: Principal, scheduleId: string) {
  const record = await ownSchedule(deps, principal, scheduleId);
  const description = await describeOrDeleted(deps, scheduleId);
  if (!description) throw notFound(`schedule ${scheduleId} was deleted in Temporal; delete it here too`);
  return { record, description, handle: deps.temporal.schedule.getHandle(scheduleId) };
}

/** What Weft keeps of a schedule its owner has just made. */
const newRecordOf = (principal: Principal, scheduleId: string, fields: ScheduleFields, at: Date): ScheduleRecord => ({
  scheduleId,
  tenantId: principal.tenantId,
  userId: principal.userId,
  name: fields.name,
  description: fields.description,
  given: { ...givenFieldsOf(fields) },
  createdAt: at,
  updatedAt: at,
});

export function createScheduleService(deps: ScheduleDeps) {
  return {
    async create(principal: Principal, fields: ScheduleFields, options: { paused?: boolean } = {}): Promise<ScheduleView> {
      checkScheduleFields(fields);
      const scheduleId = newScheduleId();
      const at = new Date();
      await refusedAsInvalid(() =>
        deps.temporal.schedule.create({
          scheduleId,
          ...scheduleOptionsOf(deps, principal, scheduleId, fields),
          state: { paused: options.paused ?? false, note: options.paused ? 'created paused' : '' },
          typedSearchAttributes: [
            { key: tenantIdKey, value: principal.tenantId },
            { key: userIdKey, value: principal.userId },
          ],
        }),
      );
      const record = newRecordOf(principal, scheduleId, fields, at);
      try {
        await insertSchedule(deps.pool, record);
      } catch (err) {
        // A schedule Weft does not own would run tasks nobody can see: it goes again.
        await deps.temporal.schedule.getHandle(scheduleId).delete();
        throw err;
      }
      return viewOfRecord(deps, record);
    },

    async get(principal: Principal, scheduleId: string): Promise<ScheduleView> {
      return viewOfRecord(deps, await ownSchedule(deps, principal, scheduleId));
    },

    /** The caller's schedules (an admin's: the tenant's), newest first; `status` keeps only those in it. */
    async list(principal: Principal, page: { limit: number; offset: number }, status?: ScheduleStatus): Promise<{ schedules: ScheduleView[]; total: number }> {
      const owner = hasRole(principal, 'admin') ? { tenantId: principal.tenantId } : { tenantId: principal.tenantId, userId: principal.userId };
      const { schedules, total } = await listSchedules(deps.pool, owner, page);
      const views = await Promise.all(schedules.map((record) => viewOfRecord(deps, record)));
      return { schedules: status ? views.filter((view) => view.status === status) : views, total };
    },

    /** Changes what `change` gives, keeping the rest; the whole is checked again. */
    async update(principal: Principal, scheduleId: string, change: Partial<ScheduleFields>): Promise<ScheduleView> {
      const { record, description, handle } = await liveSchedule(deps, principal, scheduleId);
      const current = viewOf(record, scheduleStateOf(description), { successfulRuns: 0, failedRuns: 0 });
      const switchesTiming = change.cronExpression ? { interval: '' } : change.interval ? { cronExpression: '' } : {};
      const fields: ScheduleFields = { ...current, ...switchesTiming, ...change };
      checkScheduleFields(fields);
      const options = scheduleOptionsOf(deps, { ...principal, userId: record.userId }, scheduleId, fields);
      await refusedAsInvalid(() => handle.update((previous) => ({ ...previous, ...options, policies: { ...previous.policies, ...options.policies } })));
      const changed = { name: fields.name, description: fields.description, given: { ...givenFieldsOf(fields) } };
      const at = new Date();
      await updateScheduleRecord(deps.pool, scheduleId, changed, at);
      return viewOfRecord(deps, { ...record, ...changed, updatedAt: at });
    },

    async pause(principal: Principal, scheduleId: string, reason: string): Promise<ScheduleView> {
      const { record, handle } = await liveSchedule(deps, principal, scheduleId);
      await handle.pause(reason || `paused by ${principal.userId}`);
      return viewOfRecord(deps, record);
    },

    async resume(principal: Principal, scheduleId: string, reason: string): Promise<ScheduleView> {
      const { record, handle } = await liveSchedule(deps, principal, scheduleId);
      await handle.unpause(reason || `resumed by ${principal.userId}`);
      return viewOfRecord(deps, record);
    },

    /** Deletes the Temporal Schedule (runs under way finish) and Weft's record of it. */
    async delete(principal: Principal, scheduleId: string): Promise<void> {
      await ownSchedule(deps, principal, scheduleId);
      await deps.temporal.schedule
        .getHandle(scheduleId)
        .delete()
        .catch((err: unknown) => {
          if (!(err instanceof ScheduleNotFoundError)) throw err;
        });
      await deleteSchedule(deps.pool, scheduleId);
    },

    /** The schedule's runs, newest first: Weft tasks, with their status and spend. */
    async runs(principal: Principal, scheduleId: string, page: { limit: number; offset: number }): Promise<{ runs: TaskRecord[]; total: number }> {
      const record = await ownSchedule(deps, principal, scheduleId);
      const { tasks, total } = await listTasks(deps.pool, { tenantId: record.tenantId, taskIdPrefix: runPrefixOf(scheduleId), ...page });
      return { runs: tasks, total };
    },
  };
}

export type ScheduleService = ReturnType<typeof createScheduleService>;
