import type { Command } from 'commander';
import { unaryCall } from '../../protos/clients';
import type { TaskStatus } from '../../protos/generated/shannon/orchestrator/TaskStatus';
import type { SubmitTaskRequest } from '../../protos/generated/shannon/orchestrator/SubmitTaskRequest';
import { pendingApprovals, taskOfApproval, taskStatus, withService } from '../api-client';
import type { CliContext } from '../cli-context';
import { positiveNumberOption } from '../options';
import { statusText, taskRowsText } from '../task-text';
import { watchTask } from '../task-watch';

const taskStatuses = ['QUEUED', 'RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED', 'TIMEOUT'];
const modes = ['SIMPLE', 'STANDARD', 'COMPLEX'];

/** Follows the task to its end, prints its status, and sets the exit code: 0 only when it completed. */
async function watchToEnd(ctx: CliContext, taskId: string): Promise<void> {
  const status = await watchTask(ctx, taskId);
  ctx.output().data(status, statusText);
  if (status.status !== 'TASK_STATUS_COMPLETED') process.exitCode = 1;
}

interface SubmitOptions {
  user?: string;
  session?: string;
  taskId?: string;
  watch?: boolean;
  decompose: boolean;
  approval?: boolean;
}

interface ListOptions {
  status?: string;
  mode?: string;
  user?: string;
  session?: string;
  awaitingApproval?: boolean;
  limit: number;
  offset: number;
}

export function addTaskCommands(program: Command, ctx: CliContext): void {
  program
    .command('submit')
    .description('submit a task')
    .argument('<query>', 'what the task should do')
    .option('--user <id>', "act for this user of the key's tenant (needs the act_for_users role); the key's own user by default")
    .option('--session <id>', 'session id to continue')
    .option('--task-id <id>', 'task id (a repeated submit returns the same task)')
    .option('--watch', "follow the task's events until it ends")
    .option('--no-decompose', 'always one agent (STANDARD); by default the complexity analysis picks the mode')
    .option('--approval', 'require human approval before the task runs')
    .action(async (query: string, options: SubmitOptions) => {
      const request: SubmitTaskRequest = {
        query,
        auto_decompose: options.decompose,
        require_approval: Boolean(options.approval),
        metadata: { user_id: options.user ?? '', session_id: options.session ?? '', task_id: options.taskId ?? '' },
      };
      const submitted = await withService(ctx.api(), 'orchestrator', (client) => unaryCall(client, 'SubmitTask', request));
      if (!options.watch) {
        ctx.output().data(submitted, (s) => `submitted ${s.task_id}: ${s.message}`);
        return;
      }
      ctx.output().note(`submitted ${submitted.task_id}: ${submitted.message}`);
      await watchToEnd(ctx, submitted.task_id);
    });

  program
    .command('watch')
    .description("follow a task's events until it ends (resumes after a dropped connection)")
    .argument('<task>', 'task id')
    .action((taskId: string) => watchToEnd(ctx, taskId));

  program
    .command('status')
    .description("show a task's status, agents and result")
    .argument('<task>', 'task id')
    .action(async (taskId: string) => ctx.output().data(await taskStatus(ctx.api(), taskId), statusText));

  program
    .command('list')
    .description("list the tenant's tasks, newest first")
    .option('--status <status>', `one of ${taskStatuses.join(', ')}`)
    .option('--mode <mode>', `one of ${modes.join(', ')} (filters the page)`)
    .option('--user <id>', "only this user's tasks")
    .option('--session <id>', "only this session's tasks")
    .option('--awaiting-approval', 'only tasks that wait for a decision (filters the page)')
    .option('--limit <n>', 'page size', positiveNumberOption, 20)
    .option('--offset <n>', 'skip this many', positiveNumberOption, 0)
    .action(async (options: ListOptions) => {
      const status = options.status?.toUpperCase();
      if (status && !taskStatuses.includes(status)) throw new Error(`--status must be one of ${taskStatuses.join(', ')}, not "${options.status}"`);
      const mode = options.mode?.toUpperCase();
      if (mode && !modes.includes(mode)) throw new Error(`--mode must be one of ${modes.join(', ')}, not "${options.mode}"`);
      const request = {
        user_id: options.user ?? '',
        session_id: options.session ?? '',
        limit: options.limit,
        offset: options.offset,
        filter_status: (status ? `TASK_STATUS_${status}` : 'TASK_STATUS_UNSPECIFIED') as TaskStatus,
      };
      const page = await withService(ctx.api(), 'orchestrator', (client) => unaryCall(client, 'ListTasks', request));
      const waiting = options.awaitingApproval ? new Set((await pendingApprovals(ctx.api())).map(taskOfApproval)) : undefined;
      const tasks = page.tasks.filter((task) => (!mode || task.mode === `EXECUTION_MODE_${mode}`) && (!waiting || waiting.has(task.task_id)));
      ctx.output().data({ tasks, total_count: page.total_count }, (p) => taskRowsText(p.tasks, p.total_count));
    });

  program
    .command('cancel')
    .description('cancel a task (its agents and tools stop; the reason is recorded)')
    .argument('<task>', 'task id')
    .option('--reason <text>', 'why, as recorded on the task', 'cancelled from the weft CLI')
    .action(async (taskId: string, options: { reason: string }) => {
      const response = await withService(ctx.api(), 'orchestrator', (client) => unaryCall(client, 'CancelTask', { task_id: taskId, reason: options.reason }));
      ctx.output().data(response, (r) => r.message);
      if (!response.success) process.exitCode = 1;
    });
}
