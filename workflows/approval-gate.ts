import { CancellationScope, condition, isCancellation, log, setHandler, sleep, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { ApprovalRequestInput } from '../core/tasks/run/approval-changes';
import { storeActivities } from './activity-stubs';
import { approvalDecisionSignal, type ApprovalDecision, type PendingApprovalView } from './messages';
import { awaitingApprovalKey } from './search-attributes';

const { requestApproval, recordApprovalDecision } = storeActivities;

export type ApprovalOutcome =
  | { outcome: 'approved'; modifiedAction?: string; decidedBy: string }
  | { outcome: 'rejected'; feedback: string; decidedBy: string }
  | { outcome: 'timeout' };

export type ApprovalRequest = Omit<ApprovalRequestInput, 'workflowId' | 'atMs'>;

/**
 * Human approval inside a workflow: records the pending approval, waits for approvalDecision with a
 * timeout, and records the decision. A decision for another approval, or a second one, is ignored;
 * an approval whose modified action fails validation stays pending.
 */
export function createApprovalGate(view: { pendingApproval?: PendingApprovalView }) {
  let waitingFor: string | undefined;
  let decision: ApprovalDecision | undefined;
  setHandler(approvalDecisionSignal, (incoming) => {
    if (incoming.approvalId !== waitingFor || decision) {
      log.warn('ignored an approval decision that matches no pending approval', { approvalId: incoming.approvalId });
      return;
    }
    decision = incoming;
  });

  return async function awaitApproval(
    request: ApprovalRequest,
    checkModification?: (modifiedAction: string) => Promise<string | undefined>,
  ): Promise<ApprovalOutcome> {
    const { workflowId } = workflowInfo();
    // Listen before the approval becomes visible: a decision may arrive while it is being recorded.
    // The deadline timer starts together with the request, so the history's commands do not depend
    // on whether the decision arrives before or after the request is recorded.
    waitingFor = request.approvalId;
    let timedOut = false;
    const deadline = new CancellationScope();
    void deadline.run(() => sleep(request.timeoutMs)).then(
      () => (timedOut = true),
      () => undefined, // cancelled once decided
    );
    let requested = false;
    const record = (status: 'approved' | 'rejected' | 'expired', d?: ApprovalDecision) =>
      recordApprovalDecision({
        approvalId: request.approvalId,
        taskWorkflowId: request.taskWorkflowId,
        runId: request.runId,
        ...(request.runAgentId ? { runAgentId: request.runAgentId } : {}),
        ...(request.agentId ? { agentId: request.agentId } : {}),
        sessionId: request.sessionId,
        status,
        decidedBy: d?.decidedBy ?? '',
        feedback: d?.feedback ?? '',
        modifiedAction: d?.modifiedAction ?? '',
        atMs: Date.now(),
      });
    try {
      await requestApproval({ ...request, workflowId, atMs: Date.now() });
      requested = true;
      view.pendingApproval = { approvalId: request.approvalId, workflowId, kind: request.kind, proposedAction: request.proposedAction, reason: request.reason };
      upsertSearchAttributes([{ key: awaitingApprovalKey, value: true }]);
      for (;;) {
        await condition(() => decision !== undefined || timedOut);
        if (decision === undefined) {
          await record('expired');
          return { outcome: 'timeout' };
        }
        const got = decision!;
        decision = undefined;
        if (got.approved && got.modifiedAction && checkModification) {
          const problem = await checkModification(got.modifiedAction);
          if (problem) {
            log.warn('refused an approval whose modified action is invalid; still waiting', { approvalId: got.approvalId, problem });
            continue;
          }
        }
        await record(got.approved ? 'approved' : 'rejected', got);
        return got.approved
          ? { outcome: 'approved', decidedBy: got.decidedBy ?? '', ...(got.modifiedAction ? { modifiedAction: got.modifiedAction } : {}) }
          : { outcome: 'rejected', feedback: got.feedback ?? '', decidedBy: got.decidedBy ?? '' };
      }
    } catch (err) {
      // A cancelled task leaves no approval pending.
      if (requested && isCancellation(err)) {
        await CancellationScope.nonCancellable(() => record('expired', { approvalId: request.approvalId, approved: false, feedback: 'task cancelled' }));
      }
      throw err;
    } finally {
      deadline.cancel();
      waitingFor = undefined;
      view.pendingApproval = undefined;
      upsertSearchAttributes([{ key: awaitingApprovalKey, value: false }]);
    }
  };
}

export type AwaitApproval = ReturnType<typeof createApprovalGate>;
