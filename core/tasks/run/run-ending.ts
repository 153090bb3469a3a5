import { ENGINE_CANCELED_REASON, EventConflictError, type AlsoWrite, type RecordWrite, type RuntimeStore, type TerminalStatus } from '../../store';
import { cancellationIntentRecord, runCompletedRecord, type RecordOwner } from './run-records';

/** The store run's end for a task's or an agent's status: a timeout ends the run cancelled. */
export const runStatusOf = { COMPLETED: 'completed', FAILED: 'failed', CANCELLED: 'canceled', TIMEOUT: 'canceled' } as const satisfies Record<
  string,
  TerminalStatus
>;

export interface RunEnding {
  status: TerminalStatus;
  /** An explicit cancellation (session_ended, approval_rejected, ...), recorded as intent unless one exists. */
  cancellationReason?: string;
  error?: string;
  at: Date;
}

/**
 * Ends a run with one of the three valid cancellation provenances: an explicit reason is recorded as
 * the intent first (a reason already requested wins), and a cancellation without any request is the
 * engine's. False when an earlier call recorded this ending and this one wrote nothing.
 */
export async function endRun(store: RuntimeStore, owner: RecordOwner, ending: RunEnding, alsoWrite?: AlsoWrite<RecordWrite>): Promise<boolean> {
  try {
    await writeEnding(store, owner, ending, alsoWrite);
    return true;
  } catch (err) {
    // Proposed again (a local activity after a failed workflow task) with a later time: the same
    // ending is already recorded, with everything that commits with it. Any other conflict stands.
    if (!(err instanceof EventConflictError) || (await store.loadRun(owner.runId)).status !== ending.status) throw err;
    return false;
  }
}

async function writeEnding(store: RuntimeStore, owner: RecordOwner, ending: RunEnding, alsoWrite?: AlsoWrite<RecordWrite>): Promise<void> {
  let reason = ending.status === 'canceled' ? (await store.loadRun(owner.runId)).cancellationReason : '';
  if (ending.status === 'canceled' && !reason && ending.cancellationReason) {
    await store.recordRunCancellation({
      runId: owner.runId,
      reason: ending.cancellationReason,
      record: cancellationIntentRecord(owner, ending.at, ending.cancellationReason),
    });
    reason = ending.cancellationReason;
  }
  if (ending.status === 'canceled' && !reason) reason = ENGINE_CANCELED_REASON;
  const record = runCompletedRecord(owner, ending.at, {
    status: ending.status,
    ...(reason ? { reason } : {}),
    ...(ending.error ? { error: ending.error } : {}),
  });
  await store.recordRunTerminal({ runId: owner.runId, status: ending.status, record }, alsoWrite);
}
