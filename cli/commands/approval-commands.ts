import type { Command } from 'commander';
import { structToJson } from '../../api/grpc/struct';
import { unaryCall } from '../../protos/clients';
import type { PendingApproval__Output } from '../../protos/generated/shannon/orchestrator/PendingApproval';
import { pendingApprovals, withService } from '../api-client';
import type { CliContext } from '../cli-context';
import { textOrFile } from '../options';

interface DecisionOptions {
  feedback?: string;
  modify?: string;
  as?: string;
}

function approvalText(approval: PendingApproval__Output): string[] {
  const meta = structToJson(approval.metadata);
  return [
    `${approval.approval_id}  (task ${String(meta.task_id)}, ${String(meta.kind)}, user ${String(meta.user_id)}, expires ${String(meta.expires_at)})`,
    `  reason:   ${approval.reason}`,
    `  proposed: ${approval.proposed_action}`,
  ];
}

/** An approval as plain JSON: its metadata as an object, not a protobuf Struct. */
const approvalJson = (approval: PendingApproval__Output) => ({ ...approval, metadata: structToJson(approval.metadata) });

export function addApprovalCommands(program: Command, ctx: CliContext): void {
  program
    .command('approvals')
    .description('list the approvals waiting for a decision')
    .option('--user <id>', "only this user's tasks")
    .option('--session <id>', "only this session's tasks")
    .action(async (options: { user?: string; session?: string }) => {
      const approvals = await pendingApprovals(ctx.api(), options);
      ctx.output().data(approvals.map(approvalJson), (list) => (list.length === 0 ? 'no approvals waiting' : approvals.flatMap(approvalText)));
    });

  const decide = (approved: boolean) => async (approvalId: string, options: DecisionOptions) => {
    const request = {
      approval_id: approvalId,
      workflow_id: '',
      run_id: '',
      approved,
      feedback: options.feedback ?? '',
      modified_action: options.modify ? textOrFile(options.modify) : '',
      approved_by: options.as ?? '',
    };
    const response = await withService(ctx.api(), 'orchestrator', (client) => unaryCall(client, 'ApproveTask', request));
    ctx.output().data(response, (r) => r.message);
  };

  program
    .command('approve')
    .description('approve a waiting approval (needs the approver role)')
    .argument('<approval>', 'approval id, as `weft approvals` or the watcher shows it')
    .option('--feedback <text>', 'a note recorded with the decision')
    .option('--modify <json|@file>', 'run this instead: an edited plan (JSON) or tool arguments (JSON)')
    .option('--as <name>', "the person deciding, recorded beside the key's user")
    .action(decide(true));

  program
    .command('reject')
    .description('reject a waiting approval: the task is cancelled (needs the approver role)')
    .argument('<approval>', 'approval id')
    .option('--feedback <text>', 'why, recorded with the decision')
    .option('--as <name>', "the person deciding, recorded beside the key's user")
    .action(decide(false));
}
