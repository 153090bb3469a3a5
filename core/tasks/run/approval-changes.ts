import type { Pool } from 'pg';
import { appendTaskEvent } from '../../events/event-log';
import { storeTransaction } from '../../store/transactions';
import { EventType } from '../../events/event-types';
import { decideApproval, findApproval, insertPendingApproval, type ApprovalStatus, type NewApproval } from '../approvals';
import {
  approvalDecidedKey,
  approvalDecidedRecord,
  approvalRequestedKey,
  approvalRequestedRecord,
  decodeApprovalDecided,
  recordOwnerOf,
  type ApprovalDecidedPayload,
} from './run-records';
import { appendWhileTaskRuns, taskEvent } from './task-events';
import { runEventKey } from './task-ref';
import type { TaskWriteDeps } from './task-write-deps';

export interface ApprovalRequestInput extends Pick<
  NewApproval,
  'approvalId' | 'taskId' | 'workflowId' | 'tenantId' | 'userId' | 'sessionId' | 'query' | 'kind' | 'proposedAction' | 'reason'
> {
  /** The task's workflow: its event stream. (`workflowId` is the workflow that waits for the decision.) */
  taskWorkflowId: string;
  /** The run whose log records the request and decision. */
  runId: string;
  /** The store's agent of that run; the task's own run when absent. */
  runAgentId?: string;
  /** The task's agent that asks, when an agent asks. */
  agentId?: string;
  timeoutMs: number;
  atMs: number;
}

export interface ApprovalDecisionInput extends Pick<ApprovalRequestInput, 'approvalId' | 'taskWorkflowId' | 'runId' | 'runAgentId' | 'agentId' | 'sessionId'> {
  status: Exclude<ApprovalStatus, 'pending'>;
  decidedBy: string;
  feedback: string;
  modifiedAction: string;
  /** How a person's decision came (absent for an expiry, and in workflows older than the channel). */
  channel?: 'api' | 'signal' | 'update';
  atMs: number;
}

export interface IgnoredDecisionInput {
  /** The task's workflow: its event stream. */
  taskWorkflowId: string;
  /** Unique in the task: the ignoring workflow and its count. */
  key: string;
  /** The approval the decision named, and what it decided, when it named them. */
  approvalId?: string;
  approved?: boolean;
  reason: string;
  atMs: number;
}

/** What the store recorded about an approval a workflow asks for: its decision, once decided. */
export interface RecordedApproval {
  decided?: ApprovalDecidedPayload;
}

/**
 * A decision the workflow could not apply (a signal cannot be refused), as ERROR_OCCURRED on the
 * task's stream. Idempotent by key. Nothing is shown after the task's final event, nor for the
 * very decision the store holds: a Temporal reset re-applies the signals that carried decisions,
 * and the workflow applies the recorded one. A different second decision is shown.
 */
async function recordIgnoredDecision(pool: Pool, input: IgnoredDecisionInput): Promise<void> {
  await storeTransaction(pool, async (tx) => {
    const named = input.approvalId ? await findApproval(tx, input.approvalId) : undefined;
    if (named && named.status === (input.approved ? 'approved' : 'rejected')) return;
    await appendWhileTaskRuns(
      tx,
      taskEvent(input.taskWorkflowId, `approval/ignored/${input.key}`, EventType.ErrorOccurred, new Date(input.atMs), {
        message: `an approval decision was ignored: ${input.reason}`,
        payload: { reason: input.reason },
      }),
    );
  });
}

/** APPROVAL_REQUESTED, naming the approval where Shannon's clients look for it. */
function approvalRequestedEvent(input: ApprovalRequestInput, at: Date) {
  return taskEvent(input.taskWorkflowId, runEventKey(input.runId, `approval/${input.approvalId}/requested`), EventType.ApprovalRequested, at, {
    ...(input.agentId ? { agentId: input.agentId } : {}),
    // Shannon's clients read the id from the message (`id=<approval id>`) when they do not ask GetPendingApprovals.
    message: `${input.reason} (approval id=${input.approvalId})`,
    payload: { approval_id: input.approvalId, workflow_id: input.workflowId, kind: input.kind, proposed_action: input.proposedAction },
  });
}

/**
 * A human approval's two changes, each with its run record and its event in one transaction. Each
 * is idempotent by approval id, also when proposed again at a later workflow time (a Temporal reset
 * re-drives the workflow past a request or a decision the store already holds): the record stands.
 */
export function approvalChanges({ store, pool, observer }: TaskWriteDeps) {
  return {
    /** Stores the pending approval, its approval_requested record and APPROVAL_REQUESTED; an approval already requested is left as it is, and its decision, if any, returned. */
    async requestApproval(input: ApprovalRequestInput): Promise<RecordedApproval> {
      const owner = recordOwnerOf(input);
      if (await store.findRunRecord(input.runId, approvalRequestedKey(owner, input.approvalId))) {
        const decided = await store.findRunRecord(input.runId, approvalDecidedKey(owner, input.approvalId));
        return decided ? { decided: decodeApprovalDecided(decided) } : {};
      }
      const at = new Date(input.atMs);
      const record = approvalRequestedRecord(owner, at, {
        approval_id: input.approvalId,
        kind: input.kind,
        proposed_action: input.proposedAction,
        reason: input.reason,
      });
      await store.appendRunRecord(record, async (tx) => {
        const { approvalId, taskId, workflowId, tenantId, userId, sessionId, query, kind, proposedAction, reason } = input;
        const expiresAt = new Date(input.atMs + input.timeoutMs);
        await insertPendingApproval(tx, {
          approvalId,
          taskId,
          workflowId,
          tenantId,
          userId,
          sessionId,
          query,
          kind,
          proposedAction,
          reason,
          requestedAt: at,
          expiresAt,
        });
        await appendTaskEvent(tx, approvalRequestedEvent(input, at));
      });
      return {};
    },

    /** Stores the decision (who, when, what, feedback), its approval_decided record and APPROVAL_DECISION; a recorded decision stands. */
    async recordApprovalDecision(input: ApprovalDecisionInput): Promise<void> {
      const owner = recordOwnerOf(input);
      if (await store.findRunRecord(input.runId, approvalDecidedKey(owner, input.approvalId))) return;
      const at = new Date(input.atMs);
      const decision = {
        status: input.status,
        decided_by: input.decidedBy,
        feedback: input.feedback,
        modified_action: input.modifiedAction,
        ...(input.channel ? { via: input.channel } : {}),
      };
      const record = approvalDecidedRecord(owner, at, { approval_id: input.approvalId, ...decision });
      await store.appendRunRecord(record, async (tx) => {
        await decideApproval(tx, input.approvalId, {
          status: input.status,
          decidedBy: input.decidedBy,
          feedback: input.feedback,
          modifiedAction: input.modifiedAction,
          decidedVia: input.channel ?? '',
          at,
        });
        await appendTaskEvent(
          tx,
          taskEvent(input.taskWorkflowId, runEventKey(input.runId, `approval/${input.approvalId}/decided`), EventType.ApprovalDecision, at, {
            ...(input.agentId ? { agentId: input.agentId } : {}),
            message: `${input.status} by ${input.decidedBy || 'nobody'}${input.channel ? ` (via ${input.channel})` : ''}${input.feedback ? `: ${input.feedback}` : ''}`,
            payload: { approval_id: input.approvalId, ...decision },
          }),
        );
      });
      const approval = observer && (await findApproval(pool, input.approvalId));
      if (approval)
        observer.approvalDecided({
          status: input.status,
          channel: input.channel ?? 'none',
          seconds: Math.max(0, at.getTime() - approval.requestedAt.getTime()) / 1000,
        });
    },

    recordIgnoredDecision: (input: IgnoredDecisionInput) => recordIgnoredDecision(pool, input),
  };
}
