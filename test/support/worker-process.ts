// A worker in its own process, for tests that kill workers. With CRASH_AFTER_RECORD_TYPE set it
// kills itself (SIGKILL, no cleanup) right after such a record commits (run_started: a run's start),
// before its activity can report completion: the worst moment for exactly-once. With SIDE_EFFECT_PEER set its tools include
// that peer's operations (side-effect-peer.ts).
import '../setup/quiet-logs';
import type { Pool, QueryResult } from 'pg';
import { createPool } from '../../core/db/database';
import { RecordType, createRuntimeStore, type RuntimeStore } from '../../core/store';
import { toolsWithSideEffects } from './side-effect-peer';
import { startTestWorker } from './stack';

/**
 * The record a one-statement write committed (core/tasks/run: fresh-start.ts, step-record.ts,
 * task-end.ts), which goes to the pool rather than through the store: a start the statement wrote,
 * a step's reply, a task's end.
 */
function recordCommittedBy(text: string, result: QueryResult): string | undefined {
  if (text.includes('INSERT INTO runtime_runs') && result.rows[0]?.started === true) return RecordType.RunStarted;
  if (text.includes('weft_record_task_step(')) return RecordType.TranscriptAppended;
  if (text.includes('weft_end_task(')) return RecordType.RunCompleted;
  return undefined;
}

/** The pool's own statements, killing the process right after one commits a record of the type. */
function crashingPool(pool: Pool, crashAfter: string): void {
  const query = pool.query.bind(pool) as (text: string, values?: unknown[]) => Promise<QueryResult>;
  pool.query = (async (text: string, values?: unknown[]) => {
    const result = await query(text, values);
    if (typeof text === 'string' && recordCommittedBy(text, result) === crashAfter) process.kill(process.pid, 'SIGKILL');
    return result;
  }) as Pool['query'];
}

async function main(): Promise<void> {
  const crashAfter = process.env.CRASH_AFTER_RECORD_TYPE;
  const pool = createPool(process.env.DATABASE_URL!);
  if (crashAfter) crashingPool(pool, crashAfter);
  const store = createRuntimeStore(pool);
  const crashingStart =
    (start: RuntimeStore['startRootRun']): RuntimeStore['startRootRun'] =>
    async (cmd, alsoWrite) => {
      const started = await start(cmd, alsoWrite);
      if (crashAfter === RecordType.RunStarted) process.kill(process.pid, 'SIGKILL');
      return started;
    };
  const crashing: RuntimeStore = {
    ...store,
    startRootRun: crashingStart(store.startRootRun),
    startOneShotRun: crashingStart(store.startOneShotRun),
    async appendRunRecord(record, alsoWrite) {
      const written = await store.appendRunRecord(record, alsoWrite);
      if (record.type === crashAfter) process.kill(process.pid, 'SIGKILL');
      return written;
    },
    async recordRunTerminal(cmd, alsoWrite) {
      const written = await store.recordRunTerminal(cmd, alsoWrite);
      if (cmd.record.type === crashAfter) process.kill(process.pid, 'SIGKILL');
      return written;
    },
    async appendRunRecords(records, alsoWrite) {
      const written = await store.appendRunRecords(records, alsoWrite);
      if (records.some((record) => record.type === crashAfter)) process.kill(process.pid, 'SIGKILL');
      return written;
    },
  };
  const peer = process.env.SIDE_EFFECT_PEER;
  await startTestWorker({
    taskQueue: process.env.WEFT_TASK_QUEUE!,
    pool,
    store: crashing,
    modelBaseURL: process.env.WEFT_LLM_BASE_URL!,
    ...(peer ? { tools: await toolsWithSideEffects(peer) } : {}),
  });
  console.log('worker process ready');
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
