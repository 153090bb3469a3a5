export * from './errors';
export * from './records';
export type { RecordPage } from './record-table';
export type { RunMeta, Session, SessionStatus } from './run-table';
export { ENGINE_CANCELED_REASON } from './run-lifecycle';
export type { RunCancellationCommand, RunSuspension, RunSuspensionCommand, RunTerminalCommand } from './run-lifecycle';
export { SESSION_ENDED_REASON } from './run-starts';
export type { ChildRunStartCommand, RunStartCommand, RunStartResult } from './run-starts';
export * from './runtime-store';
