// A worker in its own process, for tests that kill workers. With CRASH_AFTER_RECORD_TYPE set it
// kills itself (SIGKILL, no cleanup) right after such a record commits (run_started: a run's start),
// before its activity can report completion: the worst moment for exactly-once. With SIDE_EFFECT_PEER set its tools include
// that peer's operations (side-effect-peer.ts).
import '../setup/quiet-logs';
import { createPool } from '../../core/db/database';
import { RecordType, createRuntimeStore, type RuntimeStore } from '../../core/store';
import { toolsWithSideEffects } from './side-effect-peer';
import { startTestWorker } from './stack';

async function main(): Promise<void> {
  const crashAfter = process.env.CRASH_AFTER_RECORD_TYPE;
  const pool = createPool(process.env.DATABASE_URL!);
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
