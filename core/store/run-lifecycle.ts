import type { Queryable } from '../db/transaction';
import {
  EventConflictError,
  InvalidStoreInputError,
  RecordOwnerMismatchError,
  RunCancellationReasonConflictError,
  RunNotActiveError,
  RunSuspensionConflictError,
  RunSuspensionNotFoundError,
  RunTerminalOutcomeConflictError,
} from './errors';
import { findRecordByKey, insertLifecycleRecord, requireExactRetry } from './record-table';
import {
  RecordType,
  cancellationIntentPayload,
  decodeStrict,
  runCompletedPayload,
  runSuspendedPayload,
  type RecordInput,
  type RecordWrite,
  type TerminalStatus,
} from './records';
import { lockRunForChange, requireRun, type LifecycleChange, type StoredRun } from './run-table';
import { requireId, requireOwner, requireRecordType, validateRecordShape } from './validation';

export const ENGINE_CANCELED_REASON = 'engine_canceled';

export interface RunCancellationCommand {
  runId: string;
  reason: string;
  record: RecordInput;
}

export interface RunSuspensionCommand {
  runId: string;
  /** Opaque bytes the continuation needs; stored as given. */
  checkpoint: Uint8Array;
  record: RecordInput;
}

export interface RunTerminalCommand {
  runId: string;
  status: TerminalStatus;
  phase?: string;
  record: RecordInput;
}

export interface RunSuspension {
  runId: string;
  recordId: string;
  checkpoint: Buffer;
}

function validateLifecycleRecord(runId: string, record: RecordInput, type: string, what: string): void {
  requireId(runId, 'run id');
  validateRecordShape(record, what);
  requireRecordType(record, type, what);
  if (record.runId !== runId) throw new RecordOwnerMismatchError();
}

/** The change already happened: only an exact retry of the record that first proved it is accepted. */
async function replayChange(tx: Queryable, firstId: string, change: LifecycleChange, record: RecordInput): Promise<RecordWrite> {
  const stored = await findRecordByKey(tx, record.runId, record.key);
  if (!stored || String(stored.record_id) !== firstId) {
    throw new EventConflictError(`the ${change} was recorded with another record`);
  }
  return requireExactRetry(stored, record);
}

/** The run, locked for `change`, and the record that first proved it; the record must be the run's agent's. */
async function lockOwnedRun(tx: Queryable, runId: string, record: RecordInput, change: LifecycleChange): Promise<{ run: StoredRun; firstRecordId?: string }> {
  const locked = await lockRunForChange(tx, runId, change);
  requireOwner(record, locked.run, () => new RecordOwnerMismatchError());
  return locked;
}

export function validateCancellation(cmd: RunCancellationCommand): void {
  validateLifecycleRecord(cmd.runId, cmd.record, RecordType.CancellationIntent, 'cancellation record');
  requireId(cmd.reason, 'cancellation reason');
  const payload = decodeStrict(cancellationIntentPayload, cmd.record.payload, RecordType.CancellationIntent);
  if (payload.reason !== cmd.reason) throw new InvalidStoreInputError('cancellation record reason must equal the reason');
}

/** Stores the first cancellation reason and its intent record; the run's status does not change. */
export async function recordCancellationIn(tx: Queryable, cmd: RunCancellationCommand): Promise<RecordWrite> {
  const { run, firstRecordId } = await lockOwnedRun(tx, cmd.runId, cmd.record, 'cancellation');
  if (run.cancellationReason && run.cancellationReason !== cmd.reason) throw new RunCancellationReasonConflictError();
  if (firstRecordId) return replayChange(tx, firstRecordId, 'cancellation', cmd.record);
  if (run.status !== 'running' && run.status !== 'suspended') throw new RunNotActiveError();
  return insertLifecycleRecord(tx, cmd.record, { change: 'cancellation', runRow: { cancellationReason: cmd.reason } });
}

export function validateSuspension(cmd: RunSuspensionCommand): void {
  validateLifecycleRecord(cmd.runId, cmd.record, RecordType.RunSuspended, 'suspension record');
  if (!(cmd.checkpoint instanceof Uint8Array)) throw new InvalidStoreInputError('checkpoint must be bytes');
  decodeStrict(runSuspendedPayload, cmd.record.payload, RecordType.RunSuspended);
}

/** Stores the checkpoint, the run_suspended record and the suspended status together. */
export async function recordSuspensionIn(tx: Queryable, cmd: RunSuspensionCommand): Promise<RecordWrite> {
  const { run, firstRecordId } = await lockOwnedRun(tx, cmd.runId, cmd.record, 'suspension');
  const stored = await tx.query<{ checkpoint: Buffer }>('SELECT checkpoint FROM runtime_run_checkpoints WHERE run_id = $1', [cmd.runId]);
  const first = stored.rows[0];
  if (first && !first.checkpoint.equals(Buffer.from(cmd.checkpoint))) throw new RunSuspensionConflictError();
  if (firstRecordId) return replayChange(tx, firstRecordId, 'suspension', cmd.record);
  if (run.status !== 'running') throw new RunNotActiveError();
  const written = await insertLifecycleRecord(tx, cmd.record, { change: 'suspension', runRow: { status: 'suspended' } });
  await tx.query('INSERT INTO runtime_run_checkpoints (run_id, record_id, checkpoint) VALUES ($1, $2, $3)', [
    cmd.runId,
    written.recordId,
    Buffer.from(cmd.checkpoint),
  ]);
  return written;
}

export async function loadSuspensionIn(tx: Queryable, runId: string): Promise<RunSuspension> {
  requireId(runId, 'run id');
  await requireRun(tx, runId);
  const found = await tx.query<{ record_id: string; checkpoint: Buffer }>('SELECT record_id, checkpoint FROM runtime_run_checkpoints WHERE run_id = $1', [
    runId,
  ]);
  const row = found.rows[0];
  if (!row) throw new RunSuspensionNotFoundError();
  return { runId, recordId: String(row.record_id), checkpoint: row.checkpoint };
}

/** Returns the payload's cancellation reason, after checking status and phase match the command. */
export function validateTerminal(cmd: RunTerminalCommand): string | undefined {
  validateLifecycleRecord(cmd.runId, cmd.record, RecordType.RunCompleted, 'terminal record');
  if (!['completed', 'failed', 'canceled'].includes(cmd.status)) {
    throw new InvalidStoreInputError(`terminal status must be completed, failed or canceled, got ${cmd.status}`);
  }
  const payload = decodeStrict(runCompletedPayload, cmd.record.payload, RecordType.RunCompleted);
  if (payload.status !== cmd.status) {
    throw new InvalidStoreInputError(`terminal record status ${payload.status} does not match ${cmd.status}`);
  }
  if ((payload.phase ?? '') !== (cmd.phase ?? '')) {
    throw new InvalidStoreInputError(`terminal record phase ${payload.phase ?? ''} does not match ${cmd.phase ?? ''}`);
  }
  return payload.reason;
}

/**
 * The three valid cancellation provenances: an explicit request (meta reason R, terminal reason R),
 * a start on an ended session (written by the start itself), or an engine cancellation with no
 * request (empty meta reason, terminal reason engine_canceled).
 */
function requireCancellationProvenance(run: StoredRun, payloadReason: string | undefined): void {
  const expected = run.cancellationReason === '' ? ENGINE_CANCELED_REASON : run.cancellationReason;
  if (payloadReason !== expected) throw new RunCancellationReasonConflictError();
}

/** Stores the final status and run_completed together. */
export async function recordTerminalIn(tx: Queryable, cmd: RunTerminalCommand, payloadReason: string | undefined): Promise<RecordWrite> {
  const { run, firstRecordId } = await lockOwnedRun(tx, cmd.runId, cmd.record, 'terminal');
  if (firstRecordId) {
    if (run.status !== cmd.status) throw new RunTerminalOutcomeConflictError();
    return replayChange(tx, firstRecordId, 'terminal', cmd.record);
  }
  if (cmd.status === 'canceled') requireCancellationProvenance(run, payloadReason);
  return insertLifecycleRecord(tx, cmd.record, { change: 'terminal', runRow: { status: cmd.status } });
}
