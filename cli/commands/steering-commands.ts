import { Metadata } from '@grpc/grpc-js';
import type { Command } from 'commander';
import { unaryCall } from '../../protos/clients';
import { withService } from '../api-client';
import type { CliContext } from '../cli-context';
import { positiveNumberOption } from '../options';

// Steering a running task from the terminal (PauseTask, ResumeTask, GetControlState and
// SendSwarmMessage over gRPC): what Shannon's /pause, /resume, /control-state and
// /swarm/{id}/message do, and what `temporal workflow update execute --name pauseTask` does.

interface ReviewOptions {
  feedback?: string;
  approve?: boolean;
  reject?: string | boolean;
  version?: number;
}

/** `weft review <task>`: the plan under review and its rounds; with an option, a round of feedback or the decision. */
function addReviewCommand(program: Command, ctx: CliContext): void {
  program
    .command('review')
    .description("a task's plan under review: shows it and its rounds; --feedback has the planner revise it, --approve runs it, --reject cancels the task")
    .argument('<task>', 'task id')
    .option('--feedback <text>', 'what the planner should change')
    .option('--approve', 'run the plan as it stands')
    .option('--reject [reason]', 'cancel the task')
    .option('--version <n>', 'the version you reviewed: refused if the plan changed since', positiveNumberOption)
    .action(async (taskId: string, options: ReviewOptions) => {
      const action = options.feedback !== undefined ? 'feedback' : options.approve ? 'approve' : options.reject !== undefined ? 'reject' : undefined;
      if (!action) {
        const review = await withService(ctx.api(), 'orchestrator', (client) => unaryCall(client, 'GetTaskReview', { task_id: taskId }));
        ctx
          .output()
          .data(review, (r) => [
            `${r.status}, version ${r.version}, round ${r.round} of ${r.max_rounds}`,
            ...r.rounds.map((round) => `${round.role === 'user' ? `feedback from ${round.by}` : `plan v${round.round + 1}`}: ${round.message}`),
          ]);
        return;
      }
      const message = options.feedback ?? (typeof options.reject === 'string' ? options.reject : '');
      const reviewed = await withService(ctx.api(), 'orchestrator', (client) =>
        unaryCall(client, 'ReviewTask', { task_id: taskId, action, message, version: options.version ?? 0 }),
      );
      ctx
        .output()
        .data(reviewed, (r) => (action === 'feedback' ? [`plan version ${r.version}: ${r.current_plan}`, ...(r.last_error ? [r.last_error] : [])] : r.status));
    });
}

export function addSteeringCommands(program: Command, ctx: CliContext): void {
  addReviewCommand(program, ctx);
  for (const change of ['pause', 'resume'] as const) {
    program
      .command(change)
      .description(
        change === 'pause' ? 'pause a running task at its next step boundary (the call under way finishes)' : 'resume a paused task where it stopped',
      )
      .argument('<task>', 'task id')
      .option('--reason <text>', 'why, as recorded on the task', '')
      .action(async (taskId: string, options: { reason: string }) => {
        const method = change === 'pause' ? 'PauseTask' : 'ResumeTask';
        const response = await withService(ctx.api(), 'orchestrator', (client) => unaryCall(client, method, { task_id: taskId, reason: options.reason }));
        ctx.output().data(response, (r) => r.message);
      });
  }

  program
    .command('control-state')
    .description('whether a task is paused (since when, by whom, why) or cancelled')
    .argument('<task>', 'task id')
    .action(async (taskId: string) => {
      const state = await withService(ctx.api(), 'orchestrator', (client) => unaryCall(client, 'GetControlState', { task_id: taskId }));
      ctx
        .output()
        .data(state, (s) =>
          s.is_cancelled
            ? `cancelled${s.cancel_reason ? `: ${s.cancel_reason}` : ''}`
            : s.is_paused
              ? `paused since ${s.paused_at} by ${s.paused_by}${s.pause_reason ? `: ${s.pause_reason}` : ''}`
              : 'running',
        );
    });

  program
    .command('message')
    .description('send a message to a running task: its agents get it with their next model step')
    .argument('<task>', 'task id')
    .argument('<text>', 'the message')
    .option('--id <key>', 'an idempotency key: the same key again delivers nothing twice')
    .action(async (taskId: string, text: string, options: { id?: string }) => {
      const metadata = new Metadata();
      if (options.id) metadata.set('idempotency-key', options.id);
      const response = await withService(ctx.api(), 'orchestrator', (client) =>
        unaryCall(client, 'SendSwarmMessage', { workflow_id: taskId, message: text }, { metadata }),
      );
      ctx.output().data(response, (r) => (r.status === 'duplicate' ? 'already delivered' : 'delivered'));
    });
}
