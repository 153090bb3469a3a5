import { execFileSync } from 'node:child_process';
import { status } from '@grpc/grpc-js';
import { ensureTemporalCli } from '../../infra/temporal-dev-server';
import { unaryCall } from '../../protos/clients';
import { findTask } from '../../core/tasks/task-index';
import { startTestStack, type TestStack } from '../support/stack';
import { shannonCaller, type ShannonCaller } from '../support/shannon-http';
import { until } from '../support/orchestration';
import { itLeavesEveryTaskVerified } from '../support/verification';
import { weft } from '../support/weft-cli';

// Schedules are Temporal Schedules: made through Weft's REST routes (Shannon's), gRPC and the weft
// CLI, seen and changed with Temporal's own CLI, and what an operator changes there is what Weft
// reports. Each run is a Weft task owned by the schedule's owner.

let stack: TestStack;
let http: ShannonCaller;
beforeAll(async () => {
  stack = await startTestStack();
  http = shannonCaller(`http://127.0.0.1:${stack.api.httpPort}`, stack.apiKey);
});
afterAll(() => stack.stop());

/** The real `temporal` CLI against the test server, its JSON output parsed. */
function temporal(...args: string[]): unknown {
  const out = execFileSync(
    ensureTemporalCli(() => {}),
    [...args, '--address', process.env.TEMPORAL_ADDRESS!, '--output', 'json'],
    { encoding: 'utf8' },
  );
  return out.trim() ? (JSON.parse(out) as unknown) : undefined;
}

const schedule = (overrides: Record<string, unknown> = {}) => ({
  name: 'morning summary',
  cron_expression: '0 9 * * 1-5',
  timezone: 'Europe/Paris',
  task_query: `summarise the night ${Date.now()}`,
  ...overrides,
});

it('runs a schedule made through Weft as a Temporal Schedule: seen and paused with the Temporal CLI, its runs tasks of its owner', async () => {
  const body = schedule();
  stack.model.on(body.task_query, { content: 'all quiet overnight' });
  const created = await http.call('POST', '/api/v1/schedules', body);
  expect(created).toMatchObject({ status: 201, body: { schedule_id: expect.stringMatching(/^sched-/), next_run_at: expect.any(String) } });
  const id = created.body.schedule_id as string;

  // Temporal has it, with Weft's owner on it.
  const listed = (await until(async () => {
    const found = temporal('schedule', 'list') as Array<{ scheduleId: string }> | undefined;
    return found?.some((s) => s.scheduleId === id) ? found : undefined;
  })) as Array<{ scheduleId: string }>;
  expect(listed.map((s) => s.scheduleId)).toContain(id);
  const shown = await http.call('GET', `/api/v1/schedules/${id}`);
  expect(shown).toMatchObject({
    status: 200,
    body: {
      schedule_id: id,
      name: 'morning summary',
      cron_expression: '0 9 * * 1-5',
      timezone: 'Europe/Paris',
      status: 'ACTIVE',
      task_query: body.task_query,
      user_id: 'tester',
    },
  });
  // The next run is at 09:00 in Paris, on a weekday.
  const next = new Date(shown.body.next_run_at as string);
  expect(new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Paris', hour: '2-digit', minute: '2-digit', weekday: 'short' }).format(next)).toMatch(
    /^(Mon|Tue|Wed|Thu|Fri) 09:00$/,
  );

  // An operator runs it now with Temporal's CLI: the run is a Weft task of the schedule's owner.
  temporal('schedule', 'trigger', '--schedule-id', id);
  const runs = await until(async () => {
    const answer = await http.call('GET', `/api/v1/schedules/${id}/runs`);
    return answer.body.runs?.[0]?.status === 'COMPLETED' ? answer.body : undefined;
  });
  expect(runs).toMatchObject({ total_count: 1, runs: [{ query: body.task_query, status: 'COMPLETED', result: 'all quiet overnight' }] });
  const task = await findTask(stack.pool, runs.runs[0].workflow_id as string);
  expect(task).toMatchObject({ tenantId: stack.principal.tenantId, userId: 'tester', result: 'all quiet overnight' });
  expect(task!.taskId.startsWith(`${id}-`)).toBe(true);
  expect((await http.call('GET', `/api/v1/tasks/${task!.taskId}`)).body).toMatchObject({ status: 'TASK_STATUS_COMPLETED' });
  expect((await http.call('GET', `/api/v1/schedules/${id}`)).body).toMatchObject({ total_runs: 1, successful_runs: 1, last_run_at: expect.any(String) });

  // Paused with Temporal's CLI: Weft says so, with the operator's note.
  temporal('schedule', 'toggle', '--schedule-id', id, '--pause', '--reason', 'quiet week');
  expect((await http.call('GET', `/api/v1/schedules/${id}`)).body).toMatchObject({ status: 'PAUSED', note: 'quiet week' });
  expect((await http.call('GET', '/api/v1/schedules?status=PAUSED')).body.schedules.map((s: { schedule_id: string }) => s.schedule_id)).toContain(id);

  // Resumed through Weft: Temporal says so.
  expect(await http.call('POST', `/api/v1/schedules/${id}/resume`, { reason: 'back to work' })).toMatchObject({ status: 200, body: { success: true } });
  expect(temporal('schedule', 'describe', '--schedule-id', id)).toMatchObject({ schedule: { state: { notes: 'back to work' } } });
  expect((temporal('schedule', 'describe', '--schedule-id', id) as { schedule: { state: { paused?: boolean } } }).schedule.state.paused).toBeFalsy();

  // Changed to an interval through gRPC, and the weft CLI lists it so.
  const grpc = await stack.clientFor(stack.principal);
  await unaryCall(grpc, 'UpdateSchedule', { schedule_id: id, interval: '2h', overlap_policy: 'BUFFER_ONE' });
  expect((await unaryCall(grpc, 'GetSchedule', { schedule_id: id })).schedule).toMatchObject({
    interval: '2h',
    cron_expression: '',
    overlap_policy: 'BUFFER_ONE',
    name: 'morning summary',
  });
  const env = { WEFT_API_ADDRESS: `127.0.0.1:${stack.api.port}`, WEFT_API_KEY: stack.apiKey };
  expect((await weft(['schedule', 'list'], env)).stdout).toMatch(new RegExp(`${id}\\s+ACTIVE\\s+every 2h`));
  expect((await weft(['schedule', 'runs', id], env)).stdout).toMatch(/COMPLETED/);

  // Deleted: gone from Temporal and from Weft.
  expect((await weft(['schedule', 'delete', id], env)).stdout.trim()).toBe('schedule deleted');
  expect((temporal('schedule', 'list') as Array<{ scheduleId: string }>).map((s) => s.scheduleId)).not.toContain(id);
  expect(await http.call('GET', `/api/v1/schedules/${id}`)).toMatchObject({ status: 404 });
});

it('reports a schedule deleted in Temporal as DELETED, and refuses bad schedules and other owners with clear errors', async () => {
  const created = await http.call('POST', '/api/v1/schedules', schedule({ paused: true }));
  const id = created.body.schedule_id as string;
  expect((await http.call('GET', `/api/v1/schedules/${id}`)).body).toMatchObject({ status: 'PAUSED', note: 'created paused' });

  const refused = async (body: Record<string, unknown>) => (await http.call('POST', '/api/v1/schedules', body)).body.error as string;
  expect((await http.call('POST', '/api/v1/schedules', schedule({ cron_expression: '61 * * * *' }))).status).toBe(400);
  expect(await refused(schedule({ cron_expression: '61 * * * *' }))).toMatch(/Temporal refused the schedule/);
  expect(await refused(schedule({ interval: '1h' }))).toMatch(/one of cron_expression and interval/);
  expect(await refused(schedule({ cron_expression: '', interval: '10s' }))).toMatch(/shorter than one minute/);
  expect(await refused(schedule({ timezone: 'Mars/Olympus' }))).toMatch(/not an IANA time zone/);
  expect(await refused(schedule({ overlap_policy: 'SOMETIMES' }))).toMatch(/overlap_policy must be one of/);
  expect(await refused(schedule({ task_query: '' }))).toMatch(/task_query is required/);
  expect(await refused(schedule({ every: '1h' }))).toMatch(/unknown field every/);
  expect(await refused(schedule({ task_context: { model_tier: 'huge' } }))).toMatch(/model_tier/);
  // A context and a budget the runs' tasks can honour are taken as they are given.
  const honoured = await http.call('POST', '/api/v1/schedules', schedule({ paused: true, task_context: { model_tier: 'small' }, max_budget_per_run_usd: 2 }));
  expect(honoured.status).toBe(201);
  expect((await http.call('DELETE', `/api/v1/schedules/${honoured.body.schedule_id as string}`)).status).toBe(200);

  // Another tenant's, or another user's without the admin role: not found; the tenant's admin sees it.
  const stranger = shannonCaller(http.base, await stack.newApiKey({ tenantId: 'another-tenant', userId: 'eve', roles: [] }));
  const colleague = shannonCaller(http.base, await stack.newApiKey({ tenantId: stack.principal.tenantId, userId: 'bob', roles: [] }));
  const admin = shannonCaller(http.base, await stack.newApiKey({ tenantId: stack.principal.tenantId, userId: 'root', roles: ['admin'] }));
  expect((await stranger.call('GET', `/api/v1/schedules/${id}`)).status).toBe(404);
  expect((await colleague.call('POST', `/api/v1/schedules/${id}/pause`, {})).status).toBe(404);
  expect((await colleague.call('GET', '/api/v1/schedules')).body.schedules).toEqual([]);
  expect((await admin.call('GET', `/api/v1/schedules/${id}`)).body).toMatchObject({ schedule_id: id, user_id: 'tester' });
  const grpc = await stack.clientFor({ tenantId: 'another-tenant', userId: 'eve', roles: [] });
  await expect(unaryCall(grpc, 'DeleteSchedule', { schedule_id: id })).rejects.toMatchObject({ code: status.NOT_FOUND });

  // Deleted by an operator in Temporal: Weft reports it DELETED, refuses to change it, and deletes its record.
  temporal('schedule', 'delete', '--schedule-id', id);
  expect((await http.call('GET', `/api/v1/schedules/${id}`)).body).toMatchObject({ status: 'DELETED' });
  expect(await http.call('POST', `/api/v1/schedules/${id}/resume`, {})).toMatchObject({
    status: 404,
    body: { error: expect.stringMatching(/deleted in Temporal/) },
  });
  expect((await http.call('DELETE', `/api/v1/schedules/${id}`)).status).toBe(200);
  expect((await http.call('GET', `/api/v1/schedules/${id}`)).status).toBe(404);
});

itLeavesEveryTaskVerified(() => stack.everyTask());
