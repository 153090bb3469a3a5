import { InvalidStoreInputError } from './errors';
import type { RecordInput } from './records';

export function requireId(value: string | undefined, name: string): string {
  if (typeof value !== 'string' || value.length === 0) throw new InvalidStoreInputError(`${name} is required`);
  return value;
}

/** Timestamps are compared exactly on retries, so they must be valid Dates (JS Dates carry milliseconds). */
export function requireTimestamp(value: Date | undefined, name: string): Date {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) {
    throw new InvalidStoreInputError(`${name} must be a valid timestamp`);
  }
  return value;
}

export function validateRecordShape(record: RecordInput, what: string): void {
  requireId(record.key, `${what} key`);
  requireId(record.runId, `${what} run id`);
  requireId(record.agentId, `${what} agent id`);
  requireId(record.type, `${what} type`);
  requireTimestamp(record.timestamp, `${what} timestamp`);
  if (!(record.payload instanceof Uint8Array)) throw new InvalidStoreInputError(`${what} payload must be bytes`);
}

export function requireRecordType(record: RecordInput, type: string, what: string): void {
  if (record.type !== type) throw new InvalidStoreInputError(`${what} must have type ${type}, got ${record.type}`);
}

export function requireDistinctKeys(records: RecordInput[]): void {
  const keys = new Set(records.map((r) => r.key));
  if (keys.size !== records.length) throw new InvalidStoreInputError('distinct records need distinct keys');
}

/** The record must belong to the run it is written for. */
export function requireOwner(record: RecordInput, run: { runId: string; agentId: string; sessionId?: string }, mismatch: () => Error): void {
  if (record.runId !== run.runId || record.agentId !== run.agentId || (record.sessionId ?? '') !== (run.sessionId ?? '')) {
    throw mismatch();
  }
}

export function sameLabels(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  const left = Object.entries(a ?? {}).sort(([x], [y]) => x.localeCompare(y));
  const right = Object.entries(b ?? {}).sort(([x], [y]) => x.localeCompare(y));
  return JSON.stringify(left) === JSON.stringify(right);
}
