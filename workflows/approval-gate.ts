import {
  CancellationScope,
  condition,
  isCancellation,
  log,
  setCurrentDetails,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { ApprovalRequestInput } from '../core/tasks/run/approval-changes';
import type { ApprovalDecidedPayload } from '../core/tasks/run/run-records';
import { storeActivities } from './activity-stubs';
import { approvalDecisionSignal, approvalDecisionUpdate, handlerDescriptions, type ApprovalDecision, type PendingApprovalView } from './messages';
import { awaitingApprovalKey } from './search-attributes';
import type { TaskScope } from './task-scope';

const { requestApproval, recordApprovalDecision, recordIgnoredDecision } = storeActivities;

export type ApprovalOutcome =
  { outcome: 'approved'; modifiedAction?: string; decidedBy: string } | { outcome: 'rejected'; feedback: string; decidedBy: string } | { outcome: 'timeout' };

export type ApprovalRequest = Omit<ApprovalRequestInput, 'workflowId' | 'atMs'>;

/** An approval of the task's: the task it is for (from its scope), and what the asker asks. */
export function approvalRequestOf(
  task: TaskScope,
  asked: Omit<ApprovalRequest, 'taskId' | 'taskWorkflowId' | 'tenantId' | 'userId' | 'sessionId' | 'query'>,
): ApprovalRequest {
  const { taskId, taskWorkflowId, tenantId, userId, sessionId, query } = task;
  return { taskId, taskWorkflowId, tenantId, userId, sessionId, query, ...asked };
}

/** Why a decision cannot be applied to the approval this workflow waits for, or undefined when it can. */
function decisionProblem(incoming: unknown, pending: string | undefined, deciding: boolean): string | undefined {
  const candidate = (typeof incoming === 'object' && incoming !== null ? incoming : {}) as Record<string, unknown>;
  if (typeof candidate.approvalId !== 'string' || candidate.approvalId === '') return 'approvalId is required, e.g. {"approvalId": "<id>", "approved": true}';
  if (typeof candidate.approved !== 'boolean') return 'approved must be true or false';
  const notText = ['feedback', 'modifiedAction', 'decidedBy'].find((field) => candidate[field] !== undefined && typeof candidate[field] !== 'string');
  if (notText) return `${notText} must be a string`;
  if (candidate.approvalId !== pending) return `approval ${candidate.approvalId} is not pending in this workflow (unknown, decided or expired)`;
  if (deciding) return `approval ${candidate.approvalId} already has a decision being applied`;
  return undefined;
}

/** A decision the store holds, as the workflow receives one. */
function recordedDecision(approvalId: string, recorded: ApprovalDecidedPayload): ApprovalDecision {
  return {
    approvalId,
    approved: recorded.status === 'approved',
    feedback: recorded.feedback,
    modifiedAction: recorded.modified_action,
    decidedBy: recorded.decided_by,
    ...(recorded.via ? { channel: recorded.via } : {}),
  };
}

/** Records how an approval ended (with the workflow's time, so a retry proposes the same write). */
function recordDecision(request: ApprovalRequest, status: 'approved' | 'rejected' | 'expired', decision?: ApprovalDecision) {
  return recordApprovalDecision({
    approvalId: request.approvalId,
    taskWorkflowId: request.taskWorkflowId,
    runId: request.runId,
    ...(request.runAgentId ? { runAgentId: request.runAgentId } : {}),
    ...(request.agentId ? { agentId: request.agentId } : {}),
    sessionId: request.sessionId,
    status,
    decidedBy: decision?.decidedBy ?? '',
    feedback: decision?.feedback ?? '',
    modifiedAction: decision?.modifiedAction ?? '',
    ...(decision?.channel ? { channel: decision.channel } : {}),
    atMs: Date.now(),
  });
}

/** A signal cannot be refused: what it could not do is put where the task's readers see it. */
function showIgnoredDecision(taskWorkflowId: string, key: string, incoming: unknown, reason: string): void {
  log.warn('ignored an approval decision', { reason });
  const { approvalId, approved } = (incoming ?? {}) as { approvalId?: unknown; approved?: unknown };
  const approval = typeof approvalId === 'string' && typeof approved === 'boolean' ? { approvalId, approved } : {};
  recordIgnoredDecision({ taskWorkflowId, key, ...approval, reason, atMs: Date.now() }).catch((err: unknown) =>
    log.warn('recording an ignored approval decision failed', { error: String(err) }),
  );
}

/** What the Web UI shows while the workflow waits for a person (Temporal markdown). */
function awaitingDetails(request: ApprovalRequest): string {
  const until = new Date(Date.now() + request.timeoutMs).toISOString();
  const proposed = JSON.stringify(request.proposedAction);
  return [
    `**awaiting approval** \`${request.approvalId}\` until ${until}: ${proposed.length > 300 ? `${proposed.slice(0, 299)}…` : proposed}`,
    '',
    `Why: ${request.reason}`,
    '',
    `Decide with \`weft approve|reject '${request.approvalId}'\`, ApproveTask, or the decideApproval update.`,
  ].join('\n');
}

/** An update validator's refusal: the reason reaches whoever sent the update. */
function refuseUnless(problem: string | undefined): void {
  if (problem) throw new Error(problem);
}

/** What the gate's handlers and its waiting share: the approval waited for, and a decision received for it. */
interface GateState {
  waitingFor?: string;
  decision?: ApprovalDecision;
  ignored: number;
}

/** Decisions by update (refused with the reason when they cannot apply) and by signal (shown when ignored). */
function receiveDecisions(gate: GateState, taskWorkflowId: string): void {
  setHandler(
    approvalDecisionUpdate,
    (incoming) => {
      gate.decision = { ...incoming, channel: 'update' };
      return { accepted: true as const };
    },
    {
      validator: (incoming) => refuseUnless(decisionProblem(incoming, gate.waitingFor, gate.decision !== undefined)),
      description: handlerDescriptions.decideApproval,
    },
  );
  setHandler(
    approvalDecisionSignal,
    (incoming) => {
      if (incoming?.approvalId !== gate.waitingFor || gate.decision) {
        const reason = decisionProblem(incoming, gate.waitingFor, gate.decision !== undefined) ?? 'it matches no pending approval';
        gate.ignored += 1;
        showIgnoredDecision(taskWorkflowId, `${workflowInfo().workflowId}/${gate.ignored}`, incoming, reason);
        return;
      }
      gate.decision = { ...incoming, channel: incoming.channel ?? 'signal' };
    },
    { description: handlerDescriptions.approvalDecision },
  );
}

/**
 * Human approval inside a workflow: records the pending approval, waits for a decision (the
 * approvalDecision signal, or the decideApproval update, whose validator refuses what cannot apply)
 * with a timeout, and records the decision. A signalled decision for another approval, or a second
 * one, is ignored; an approval whose modified action fails validation stays pending.
 */
export function createApprovalGate(view: { pendingApproval?: PendingApprovalView }, task: { taskWorkflowId: string }) {
  const gate: GateState = { ignored: 0 };
  receiveDecisions(gate, task.taskWorkflowId);

  return async function awaitApproval(
    request: ApprovalRequest,
    checkModification?: (modifiedAction: string) => Promise<string | undefined>,
  ): Promise<ApprovalOutcome> {
    const { workflowId } = workflowInfo();
    // Listen before the approval becomes visible: a decision may arrive while it is being recorded.
    // The deadline timer starts together with the request, so the history's commands do not depend
    // on whether the decision arrives before or after the request is recorded.
    gate.waitingFor = request.approvalId;
    let timedOut = false;
    const deadline = new CancellationScope();
    void deadline
      .run(() => sleep(request.timeoutMs, { summary: `approval deadline of ${request.approvalId}` }))
      .then(
        () => (timedOut = true),
        () => undefined, // cancelled once decided
      );
    let requested = false;
    const record = (status: 'approved' | 'rejected' | 'expired', d?: ApprovalDecision) => recordDecision(request, status, d);
    try {
      const recorded = await requestApproval({ ...request, workflowId, atMs: Date.now() });
      requested = true;
      // A reset re-drove the workflow past a decision the store holds: it is applied again, not awaited.
      if (recorded?.decided) {
        if (recorded.decided.status === 'expired') timedOut = true;
        else gate.decision = recordedDecision(request.approvalId, recorded.decided);
      }
      view.pendingApproval = { approvalId: request.approvalId, workflowId, kind: request.kind, proposedAction: request.proposedAction, reason: request.reason };
      setCurrentDetails(awaitingDetails(request));
      upsertSearchAttributes([{ key: awaitingApprovalKey, value: true }]);
      for (;;) {
        await condition(() => gate.decision !== undefined || timedOut);
        if (gate.decision === undefined) {
          await record('expired');
          return { outcome: 'timeout' };
        }
        const got = gate.decision;
        gate.decision = undefined;
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
      gate.waitingFor = undefined;
      view.pendingApproval = undefined;
      setCurrentDetails('');
      upsertSearchAttributes([{ key: awaitingApprovalKey, value: false }]);
    }
  };
}

export type AwaitApproval = ReturnType<typeof createApprovalGate>;
