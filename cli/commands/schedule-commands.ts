import type { Command } from 'commander';
import { unaryCall } from '../../protos/clients';
import type { OrchestratorServiceClient } from '../../protos/generated/shannon/orchestrator/OrchestratorService';
import type { ScheduleInfo__Output } from '../../protos/generated/shannon/orchestrator/ScheduleInfo';
import { withService } from '../api-client';
import type { CliContext } from '../cli-context';
import { positiveNumberOption } from '../options';

// `weft schedule ...`: schedules on Temporal Schedules through OrchestratorService's schedule RPCs,
// what Shannon's /api/v1/schedules does; `temporal schedule list|describe|toggle|trigger` work on
// the same schedules.

interface TimingOptions {
  cron?: string;
  every?: string;
  timezone?: string;
  overlap?: string;
}

const scheduleLine = (s: ScheduleInfo__Output) =>
  `${s.schedule_id}  ${s.status}  ${s.cron_expression || `every ${s.interval}`} ${s.timezone}  next ${s.next_run_at || '-'}  runs ${s.total_runs}  ${s.name}`;

function timingOptions(command: Command): Command {
  return command
    .option('--cron <expression>', 'five cron fields, e.g. "0 9 * * 1-5"')
    .option('--every <duration>', 'instead of --cron: an interval, e.g. 30m, 6h, 1d')
    .option('--timezone <zone>', 'IANA time zone the cron expression is read in (default UTC)')
    .option('--overlap <policy>', 'a run due while the last still runs: SKIP (default), BUFFER_ONE, BUFFER_ALL, CANCEL_OTHER, TERMINATE_OTHER, ALLOW_ALL');
}

type Orchestrator = <T>(work: (client: OrchestratorServiceClient) => Promise<T>) => Promise<T>;

/** list, get and runs. */
function addScheduleViews(schedule: Command, orchestrator: Orchestrator, ctx: CliContext): void {
  schedule
    .command('list')
    .description("your schedules (an admin: the tenant's)")
    .option('--status <status>', 'ACTIVE, PAUSED, DELETED or ALL', 'ALL')
    .option('--page <n>', 'page, from 1', positiveNumberOption, 1)
    .action(async (options: { status: string; page: number }) => {
      const listed = await orchestrator((client) => unaryCall(client, 'ListSchedules', { status: options.status, page: options.page, page_size: 50 }));
      ctx.output().data(listed, (l) => [...l.schedules.map(scheduleLine), `${l.total_count} schedules`]);
    });

  schedule
    .command('get')
    .argument('<schedule>', 'schedule id')
    .action(async (scheduleId: string) => {
      const { schedule: found } = await orchestrator((client) => unaryCall(client, 'GetSchedule', { schedule_id: scheduleId }));
      ctx.output().data(found!, (s) => [scheduleLine(s), `task: ${s.task_query}`, ...(s.note ? [`note: ${s.note}`] : [])]);
    });

  schedule
    .command('runs')
    .description("a schedule's runs: the tasks it started, newest first")
    .argument('<schedule>', 'schedule id')
    .option('--page <n>', 'page, from 1', positiveNumberOption, 1)
    .action(async (scheduleId: string, options: { page: number }) => {
      const listed = await orchestrator((client) =>
        unaryCall(client, 'ListScheduleRuns', {
          schedule_id: scheduleId,
          page: options.page,
          page_size: 50,
        }),
      );
      ctx.output().data(listed, (l) => [...l.runs.map((r) => `${r.task_id}  ${r.status.replace('TASK_STATUS_', '')}  ${r.query}`), `${l.total_count} runs`]);
    });
}

export function addScheduleCommands(program: Command, ctx: CliContext): void {
  const schedule = program.command('schedule').description('tasks on a schedule (Temporal Schedules): create, list, get, update, pause, resume, delete, runs');
  const orchestrator: Orchestrator = (work) => withService(ctx.api(), 'orchestrator', work);

  timingOptions(
    schedule.command('create').description('run a task on a schedule').argument('<name>', "the schedule's name").argument('<query>', 'the task to run'),
  )
    .option('--description <text>', 'what it is for', '')
    .option('--paused', 'create it paused')
    .action(async (name: string, query: string, options: TimingOptions & { description: string; paused?: boolean }) => {
      const created = await orchestrator((client) =>
        unaryCall(client, 'CreateSchedule', {
          name,
          description: options.description,
          cron_expression: options.cron ?? '',
          interval: options.every ?? '',
          timezone: options.timezone ?? '',
          task_query: query,
          overlap_policy: options.overlap ?? '',
          paused: options.paused ?? false,
        }),
      );
      ctx.output().data(created, (c) => `${c.schedule_id}${c.next_run_at ? `: next run ${c.next_run_at}` : ''}`);
    });

  timingOptions(schedule.command('update').description('change a schedule: what is given, the rest kept').argument('<schedule>', 'schedule id'))
    .option('--name <name>', 'a new name')
    .option('--query <text>', 'a new task')
    .action(async (scheduleId: string, options: TimingOptions & { name?: string; query?: string }) => {
      const updated = await orchestrator((client) =>
        unaryCall(client, 'UpdateSchedule', {
          schedule_id: scheduleId,
          ...(options.name !== undefined ? { name: options.name } : {}),
          ...(options.query !== undefined ? { task_query: options.query } : {}),
          ...(options.cron !== undefined ? { cron_expression: options.cron } : {}),
          ...(options.every !== undefined ? { interval: options.every } : {}),
          ...(options.timezone !== undefined ? { timezone: options.timezone } : {}),
          ...(options.overlap !== undefined ? { overlap_policy: options.overlap } : {}),
        }),
      );
      ctx.output().data(updated, (u) => `updated${u.next_run_at ? `: next run ${u.next_run_at}` : ''}`);
    });

  for (const change of ['pause', 'resume'] as const) {
    schedule
      .command(change)
      .argument('<schedule>', 'schedule id')
      .option('--reason <text>', "why, as Temporal's note on the schedule", '')
      .action(async (scheduleId: string, options: { reason: string }) => {
        const method = change === 'pause' ? 'PauseSchedule' : 'ResumeSchedule';
        ctx.output().data(await orchestrator((client) => unaryCall(client, method, { schedule_id: scheduleId, reason: options.reason })), (r) => r.message);
      });
  }

  schedule
    .command('delete')
    .argument('<schedule>', 'schedule id')
    .action(async (scheduleId: string) => {
      ctx.output().data(await orchestrator((client) => unaryCall(client, 'DeleteSchedule', { schedule_id: scheduleId })), (r) => r.message);
    });

  addScheduleViews(schedule, orchestrator, ctx);
}
