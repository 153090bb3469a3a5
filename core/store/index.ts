export * from './errors';
export * from './records';
export type { RecordPage } from './record-table';
export type { RunMeta, Session, SessionStatus } from './run-table';
export * from './runtime-store';
