import { appendTaskEvent } from '../core/events/event-log';
import { EventType } from '../core/events/event-types';
import { decideApproval, insertPendingApproval, type ApprovalStatus, type NewApproval } from '../core/tasks/approvals';
import type { ActivityDeps } from './deps';
import { failPermanentErrorsFast } from './failures';
import { taskEvent } from './task-events';
import { approvalRecord, ownerOf } from './task-records';

export interface ApprovalRequestInput
  extends Pick<NewApproval, 'approvalId' | 'taskId' | 'workflowId' | 'tenantId' | 'userId' | 'sessionId' | 'query' | 'kind' | 'proposedAction' | 'reason'> {
  /** The task workflow: its event stream. (`workflowId` is the workflow that waits for the decision.) */
  taskWorkflowId: string;
  /** The run whose log records the request and decision. */
  runId: string;
  runAgentId?: string;
  agentId?: string;
  timeoutMs: number;
  atMs: number;
}

export interface ApprovalDecisionInput extends Pick<ApprovalRequestInput, 'approvalId' | 'taskWorkflowId' | 'runId' | 'runAgentId' | 'agentId' | 'sessionId'> {
  status: Exclude<ApprovalStatus, 'pending'>;
  decidedBy: string;
  feedback: string;
  modifiedAction: string;
  atMs: number;
}

export function createApprovalActivities({ store, tools }: ActivityDeps) {
  return {
    /** Stores the pending approval, its run record and APPROVAL_REQUESTED together. */
    async requestApproval(input: ApprovalRequestInput): Promise<void> {
      return failPermanentErrorsFast(async () => {
        const at = new Date(input.atMs);
        const owner = ownerOf(input.runId, input.sessionId, input.runAgentId);
        const record = approvalRecord(owner, input.approvalId, 'requested', at, {
          approval_id: input.approvalId,
          kind: input.kind,
          proposed_action: input.proposedAction,
          reason: input.reason,
        });
        await store.appendRunRecord(record, async (tx) => {
          await insertPendingApproval(tx, {
            approvalId: input.approvalId,
            taskId: input.taskId,
            workflowId: input.workflowId,
            tenantId: input.tenantId,
            userId: input.userId,
            sessionId: input.sessionId,
            query: input.query,
            kind: input.kind,
            proposedAction: input.proposedAction,
            reason: input.reason,
            requestedAt: at,
            expiresAt: new Date(input.atMs + input.timeoutMs),
          });
          await appendTaskEvent(
            tx,
            taskEvent(input.taskWorkflowId, `approval/${input.approvalId}/requested`, EventType.ApprovalRequested, at, {
              ...(input.agentId ? { agentId: input.agentId } : {}),
              message: input.reason,
              payload: { approval_id: input.approvalId, workflow_id: input.workflowId, kind: input.kind, proposed_action: input.proposedAction },
            }),
          );
        });
      });
    },

    /** Stores the decision (who, when, what, feedback), its run record and APPROVAL_DECISION together. */
    async recordApprovalDecision(input: ApprovalDecisionInput): Promise<void> {
      return failPermanentErrorsFast(async () => {
        const at = new Date(input.atMs);
        const owner = ownerOf(input.runId, input.sessionId, input.runAgentId);
        const decision = { status: input.status, decided_by: input.decidedBy, feedback: input.feedback, modified_action: input.modifiedAction };
        const record = approvalRecord(owner, input.approvalId, 'decided', at, { approval_id: input.approvalId, ...decision });
        await store.appendRunRecord(record, async (tx) => {
          await decideApproval(tx, input.approvalId, {
            status: input.status,
            decidedBy: input.decidedBy,
            feedback: input.feedback,
            modifiedAction: input.modifiedAction,
            at,
          });
          await appendTaskEvent(
            tx,
            taskEvent(input.taskWorkflowId, `approval/${input.approvalId}/decided`, EventType.ApprovalDecision, at, {
              ...(input.agentId ? { agentId: input.agentId } : {}),
              message: `${input.status} by ${input.decidedBy || 'nobody'}${input.feedback ? `: ${input.feedback}` : ''}`,
              payload: { approval_id: input.approvalId, ...decision },
            }),
          );
        });
      });
    },

    /** Validates edited tool arguments (JSON text) against the tool's schema, like the original call. */
    async checkToolArguments(input: { tool: string; argumentsText: string }): Promise<{ ok: true; arguments: Record<string, unknown> } | { ok: false; error: string }> {
      let parsed: unknown;
      try {
        parsed = JSON.parse(input.argumentsText);
      } catch {
        return { ok: false, error: 'modified action is not valid JSON' };
      }
      const invalid = tools.checkArguments(input.tool, parsed);
      return invalid ? { ok: false, error: invalid } : { ok: true, arguments: parsed as Record<string, unknown> };
    },
  };
}
