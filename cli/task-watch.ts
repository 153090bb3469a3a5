import { setTimeout as sleep } from 'node:timers/promises';
import { status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import type { TaskUpdate__Output } from '../protos/generated/shannon/orchestrator/TaskUpdate';
import { pendingApprovals, taskOfApproval, taskStatus, withService } from './api-client';
import type { CliContext } from './cli-context';

// `weft watch`: a task's events as they happen, from the API's stream. A dropped connection (an API
// restart, a network blip) is resumed after the last event seen, so nothing is shown twice or lost.

const finalTypes: ReadonlySet<string> = new Set(['WORKFLOW_COMPLETED', 'WORKFLOW_FAILED', 'WORKFLOW_CANCELLED']);
/** Errors after which the stream is opened again: the API went away or the connection dropped. */
const resumable: ReadonlySet<number> = new Set([GrpcStatus.UNAVAILABLE, GrpcStatus.CANCELLED, GrpcStatus.DEADLINE_EXCEEDED, GrpcStatus.INTERNAL]);
const maxResumePauseMs = 5_000;

const timeOf = (update: TaskUpdate__Output) => new Date(Number(update.timestamp?.seconds ?? 0) * 1000 + Math.floor((update.timestamp?.nanos ?? 0) / 1e6));

function eventLine(ctx: CliContext, update: TaskUpdate__Output): string {
  const { style } = ctx.output();
  const time = timeOf(update).toLocaleTimeString('en-GB', { hour12: false });
  const colour = finalTypes.has(update.type) || update.type === 'ERROR_OCCURRED' ? 'bold' : update.type === 'APPROVAL_REQUESTED' ? 'yellow' : 'cyan';
  return `${style('dim', time)}  ${(update.agent_id || '-').padEnd(12)} ${style(colour, update.type.padEnd(20))} ${update.message}`;
}

const quoted = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/** What a person needs to decide: the approval's id, what it proposes, and the commands to decide it. */
async function showApprovalHint(ctx: CliContext, taskId: string, shown: Set<string>): Promise<void> {
  for (const approval of (await pendingApprovals(ctx.api())).filter((a) => taskOfApproval(a) === taskId)) {
    if (shown.has(approval.approval_id)) continue;
    shown.add(approval.approval_id);
    const { style, note } = ctx.output();
    note(style('yellow', `approval needed: ${approval.approval_id}`));
    note(`  reason:   ${approval.reason}`);
    note(`  proposed: ${approval.proposed_action}`);
    note(`  approve:  ${ctx.selfCommand} approve ${quoted(approval.approval_id)}`);
    note(`  reject:   ${ctx.selfCommand} reject ${quoted(approval.approval_id)} --feedback 'why'`);
  }
}

/** Reads the stream from after `lastStreamId` until the task's final event or the stream's end; the last event seen. */
async function readStream(ctx: CliContext, taskId: string, from: { lastStreamId: string; done: boolean }, approvalsShown: Set<string>): Promise<void> {
  await withService(ctx.api(), 'streaming', async (client) => {
    const call = client.StreamTaskExecution({ workflow_id: taskId, types: [], last_event_id: '0', last_stream_id: from.lastStreamId });
    for await (const update of call as AsyncIterable<TaskUpdate__Output>) {
      // A model's partial text is for live views; the step's full reply follows as its own event.
      if (update.type === 'LLM_PARTIAL') continue;
      ctx.output().line(update, (u) => eventLine(ctx, u));
      if (update.stream_id) from.lastStreamId = update.stream_id;
      if (update.type === 'APPROVAL_REQUESTED') await showApprovalHint(ctx, taskId, approvalsShown);
      if (finalTypes.has(update.type)) from.done = true;
    }
  });
}

/** Follows a task's events until it ends, resuming after dropped connections; its final status. */
export async function watchTask(ctx: CliContext, taskId: string) {
  const from = { lastStreamId: '', done: false };
  const approvalsShown = new Set<string>();
  let pauseMs = 250;
  while (!from.done) {
    try {
      await readStream(ctx, taskId, from, approvalsShown);
      pauseMs = 250;
    } catch (err) {
      const code = (err as ServiceError).code;
      if (!resumable.has(code)) throw err;
      ctx
        .output()
        .note(
          ctx
            .output()
            .style('dim', `(connection lost: ${(err as ServiceError).details || (err as Error).message}; resuming after ${from.lastStreamId || 'the start'})`),
        );
    }
    if (!from.done) await sleep(pauseMs);
    pauseMs = Math.min(pauseMs * 2, maxResumePauseMs);
  }
  return taskStatus(ctx.api(), taskId);
}
