import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { createPool } from '../../core/db/database';
import {
  RecordType,
  createRuntimeStore,
  encodePayload,
  type ChildRunStartCommand,
  type RecordInput,
  type RunStartCommand,
  type RuntimeStore,
} from '../../core/store';

// Builders for store commands. Every id is unique per call, so suites share one database.

export const uid = (prefix: string) => `${prefix}-${randomUUID()}`;

let clock = Date.UTC(2026, 0, 1);
/** Distinct, millisecond-precise timestamps. */
export const at = () => new Date((clock += 1000));

export function openStore(): { pool: Pool; store: RuntimeStore } {
  const pool = createPool(process.env.DATABASE_URL!, { size: 20 });
  return { pool, store: createRuntimeStore(pool) };
}

export interface RunIdentity {
  runId: string;
  agentId: string;
  sessionId?: string;
}

export function record(run: RunIdentity, type: string, payload: object | Uint8Array, overrides: Partial<RecordInput> = {}): RecordInput {
  return {
    key: uid('key'),
    runId: run.runId,
    agentId: run.agentId,
    ...(run.sessionId ? { sessionId: run.sessionId } : {}),
    type,
    timestamp: at(),
    payload: payload instanceof Uint8Array ? payload : encodePayload(payload),
    ...overrides,
  };
}

export function startCommand(run: RunIdentity & { parentRunId?: string; predecessorRunId?: string; labels?: Record<string, string> }): RunStartCommand {
  const startedAt = at();
  const startedPayload = {
    ...(run.parentRunId ? { parent_run_id: run.parentRunId } : {}),
    ...(run.predecessorRunId ? { predecessor_run_id: run.predecessorRunId } : {}),
    ...(run.labels ? { labels: run.labels } : {}),
  };
  return {
    runId: run.runId,
    agentId: run.agentId,
    ...(run.sessionId ? { sessionId: run.sessionId } : {}),
    ...(run.parentRunId ? { parentRunId: run.parentRunId } : {}),
    ...(run.predecessorRunId ? { predecessorRunId: run.predecessorRunId } : {}),
    ...(run.labels ? { labels: run.labels } : {}),
    startedAt,
    started: record(run, RecordType.RunStarted, startedPayload, { timestamp: startedAt }),
    canceled: record(run, RecordType.RunCompleted, { status: 'canceled', reason: 'session_ended' }),
  };
}

export function childCommand(
  parent: RunIdentity,
  child: RunIdentity & { predecessorRunId?: string },
  tool = { name: 'delegate', callId: uid('call') },
): ChildRunStartCommand {
  return {
    ...startCommand({ ...child, parentRunId: parent.runId }),
    parentRunId: parent.runId,
    link: record(parent, RecordType.ChildRunLinked, {
      tool_name: tool.name,
      tool_call_id: tool.callId,
      child_run_id: child.runId,
      child_agent_id: child.agentId,
    }),
  };
}

export function terminal(run: RunIdentity, status: 'completed' | 'failed' | 'canceled', extra: object = {}) {
  return { runId: run.runId, status, record: record(run, RecordType.RunCompleted, { status, ...extra }) };
}

/** A session with one running root run. */
export async function runningRoot(store: RuntimeStore, labels?: Record<string, string>) {
  const sessionId = uid('sess');
  await store.createSession(sessionId, at());
  const run = { runId: uid('run'), agentId: 'agent.root', sessionId };
  const cmd = startCommand({ ...run, ...(labels ? { labels } : {}) });
  const started = await store.startRootRun(cmd);
  return { run, cmd, started, sessionId };
}

export function note(run: RunIdentity, text = 'hello', overrides: Partial<RecordInput> = {}) {
  return record(run, 'agent.note', { text }, overrides);
}
