import {
  scheduleAnswer,
  scheduleChangedAnswer,
  scheduleCreateBody,
  scheduleCreatedAnswer,
  scheduleRunsAnswer,
  scheduleUpdateBody,
  scheduleUpdatedAnswer,
  schedulesAnswer,
  steerBody,
} from './shannon-schemas';
import type { TaskRecord } from '../../core/tasks/task-index';
import { scheduleInfoOf } from '../tasks/schedule-info';
import { overlapPolicies, type OverlapPolicy, type ScheduleFields } from '../tasks/schedule-spec';
import type { ScheduleStatus } from '../tasks/schedules';
import { reasonOf } from './control-routes';
import { objectOf, type JsonObject } from './route-adapter';
import { badRequest, integerParam, type ShannonCall, type ShannonDeps, type ShannonRoute } from './shannon-route';

// Schedules as Shannon's gateway serves them (/api/v1/schedules...), over the schedules every door
// shares (api/tasks/schedules.ts): the same fields, answers and errors as gRPC's RPCs.

type FieldKind = 'string' | 'number' | 'object' | 'boolean';

/** The body's fields by name: Shannon's, then Weft's (interval, overlap_policy, paused). */
const bodyFields: Record<string, { field: keyof ScheduleFields | 'paused'; kind: FieldKind }> = {
  name: { field: 'name', kind: 'string' },
  description: { field: 'description', kind: 'string' },
  cron_expression: { field: 'cronExpression', kind: 'string' },
  timezone: { field: 'timezone', kind: 'string' },
  task_query: { field: 'taskQuery', kind: 'string' },
  task_context: { field: 'taskContext', kind: 'object' },
  max_budget_per_run_usd: { field: 'maxBudgetPerRunUsd', kind: 'number' },
  timeout_seconds: { field: 'timeoutSeconds', kind: 'number' },
  interval: { field: 'interval', kind: 'string' },
  overlap_policy: { field: 'overlapPolicy', kind: 'string' },
  paused: { field: 'paused', kind: 'boolean' },
};

/** The fields a body gives, each of its type; any other field is refused. */
function givenFields(body: unknown, refuse: readonly string[] = []): Partial<ScheduleFields> & { paused?: boolean } {
  const request = objectOf(body ?? {});
  if (!request) throw badRequest('the request body must be a JSON object');
  const given: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(request)) {
    const known = bodyFields[name];
    if (!known || refuse.includes(name)) throw badRequest(`unknown field ${name}`);
    const kind = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
    if (kind !== known.kind) throw badRequest(`${name} must be a${known.kind === 'object' ? 'n' : ''} ${known.kind}`);
    given[known.field] = value;
  }
  if (given.overlapPolicy !== undefined && !overlapPolicies.includes(given.overlapPolicy as OverlapPolicy)) {
    throw badRequest(`overlap_policy must be one of ${overlapPolicies.join(', ')}`);
  }
  return given;
}

const withDefaults = (given: Partial<ScheduleFields>): ScheduleFields => ({
  name: '',
  description: '',
  cronExpression: '',
  interval: '',
  timezone: 'UTC',
  taskQuery: '',
  taskContext: {},
  maxBudgetPerRunUsd: 0,
  timeoutSeconds: 0,
  overlapPolicy: 'SKIP',
  ...given,
});

const pageOf = (query: Record<string, unknown>) => {
  const page = integerParam(query, 'page', 1, { min: 1, max: 1_000_000 });
  const pageSize = integerParam(query, 'page_size', 50, { min: 1, max: 100 });
  return { page, pageSize, limit: pageSize, offset: (page - 1) * pageSize };
};

function statusOf(query: Record<string, unknown>): ScheduleStatus | undefined {
  const status = query.status;
  if (status === undefined || status === '' || status === 'ALL') return undefined;
  if (status !== 'ACTIVE' && status !== 'PAUSED' && status !== 'DELETED') throw badRequest('status must be ACTIVE, PAUSED, DELETED or ALL');
  return status;
}

/** A run as Shannon lists a schedule's runs: the task it was. */
function runJson(task: TaskRecord): JsonObject {
  return {
    workflow_id: task.workflowId,
    query: task.query,
    status: task.status,
    ...(task.result ? { result: task.result } : {}),
    ...(task.errorMessage ? { error_message: task.errorMessage } : {}),
    ...(task.usage.model ? { model_used: task.usage.model } : {}),
    total_tokens: task.usage.totalTokens,
    total_cost_usd: task.usage.costUsd,
    ...(task.completedAt ? { duration_ms: task.completedAt.getTime() - task.createdAt.getTime() } : {}),
    triggered_at: task.createdAt.toISOString(),
    started_at: task.createdAt.toISOString(),
    ...(task.completedAt ? { completed_at: task.completedAt.toISOString() } : {}),
  };
}

const nextRunOf = (view: { nextRunAt?: Date }) => view.nextRunAt?.toISOString() ?? '';

async function create({ principal, body }: ShannonCall, deps: ShannonDeps) {
  const { paused, ...fields } = givenFields(body);
  const view = await deps.schedules.create(principal, withDefaults(fields), { paused: paused ?? false });
  return { status: 201, body: { schedule_id: view.scheduleId, message: 'schedule created', next_run_at: nextRunOf(view) } };
}

async function list({ principal, query }: ShannonCall, deps: ShannonDeps) {
  const page = pageOf(query);
  const listed = await deps.schedules.list(principal, page, statusOf(query));
  return {
    body: { schedules: listed.schedules.map((view) => ({ ...scheduleInfoOf(view) })), total_count: listed.total, page: page.page, page_size: page.pageSize },
  };
}

async function update({ principal, params, body }: ShannonCall, deps: ShannonDeps) {
  const view = await deps.schedules.update(principal, params.id!, givenFields(body, ['paused']));
  return { body: { success: true, message: 'schedule updated', next_run_at: nextRunOf(view) } };
}

async function runs({ principal, params, query }: ShannonCall, deps: ShannonDeps) {
  const page = pageOf(query);
  const listed = await deps.schedules.runs(principal, params.id!, page);
  return { body: { runs: listed.runs.map(runJson), total_count: listed.total, page: page.page, page_size: page.pageSize } };
}

export const scheduleRoutes: ShannonRoute[] = [
  {
    method: 'POST',
    path: '/api/v1/schedules',
    body: scheduleCreateBody,
    answer: scheduleCreatedAnswer,
    answerStatus: 201,
    summary:
      'Create a schedule (a Temporal Schedule): {"name", "cron_expression" or "interval", "timezone", "task_query", "task_context", "max_budget_per_run_usd", "timeout_seconds", "overlap_policy", "paused"}',
    tag: 'schedules',
    handle: create,
  },
  {
    method: 'GET',
    path: '/api/v1/schedules',
    answer: schedulesAnswer,
    summary: "Your schedules (an admin: the tenant's), newest first; ?status=ACTIVE|PAUSED|DELETED",
    tag: 'schedules',
    query: ['page', 'page_size', 'status'],
    handle: list,
  },
  {
    method: 'GET',
    path: '/api/v1/schedules/:id',
    answer: scheduleAnswer,
    summary: 'A schedule, as Temporal has it now (paused, next run) with what its owner gave',
    tag: 'schedules',
    handle: async ({ principal, params }, deps) => ({ body: { ...scheduleInfoOf(await deps.schedules.get(principal, params.id!)) } }),
  },
  {
    method: 'PUT',
    path: '/api/v1/schedules/:id',
    body: scheduleUpdateBody,
    answer: scheduleUpdatedAnswer,
    summary: 'Change a schedule: the fields given, the rest kept',
    tag: 'schedules',
    handle: update,
  },
  {
    method: 'POST',
    path: '/api/v1/schedules/:id/pause',
    answer: scheduleChangedAnswer,
    body: steerBody,
    summary: 'Pause a schedule: no run starts until it is resumed; {"reason": "..."}',
    tag: 'schedules',
    handle: async ({ principal, params, body }, deps) => {
      await deps.schedules.pause(principal, params.id!, reasonOf(body));
      return { body: { success: true, message: 'schedule paused' } };
    },
  },
  {
    method: 'POST',
    path: '/api/v1/schedules/:id/resume',
    answer: scheduleChangedAnswer,
    body: steerBody,
    summary: 'Resume a paused schedule; {"reason": "..."}',
    tag: 'schedules',
    handle: async ({ principal, params, body }, deps) => {
      const view = await deps.schedules.resume(principal, params.id!, reasonOf(body));
      return { body: { success: true, message: 'schedule resumed', next_run_at: nextRunOf(view) } };
    },
  },
  {
    method: 'DELETE',
    path: '/api/v1/schedules/:id',
    answer: scheduleChangedAnswer,
    summary: 'Delete a schedule (runs under way finish)',
    tag: 'schedules',
    handle: async ({ principal, params }, deps) => {
      await deps.schedules.delete(principal, params.id!);
      return { body: { success: true, message: 'schedule deleted' } };
    },
  },
  {
    method: 'GET',
    path: '/api/v1/schedules/:id/runs',
    answer: scheduleRunsAnswer,
    summary: "A schedule's runs, newest first: the tasks it started",
    tag: 'schedules',
    query: ['page', 'page_size'],
    handle: runs,
  },
];
