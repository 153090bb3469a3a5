// Runtime store benchmark: `npx tsx bench/store-bench.ts` (DATABASE_URL picks the server; a
// scratch database weft_bench is created and dropped). Prints p50/p99 and ops/s for lifecycle
// transactions, concurrent appends and page reads, beside a plain INSERT baseline measured on the
// same database in the same run.
import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { createPool } from '../core/db/database';
import { RecordType, createRuntimeStore, encodePayload, type RecordInput, type RuntimeStore } from '../core/store';
import { withScratchDatabase } from './scratch-database';
import { printTable, summarize, timed, type Summary } from './stats';

const lifecycleRuns = Number(process.env.BENCH_RUNS ?? 1000);
const writers = Number(process.env.BENCH_WRITERS ?? 8);
const appendsPerWriter = Number(process.env.BENCH_APPENDS ?? 500);
// Lifecycle changes, appends and their baseline alternate round by round, so a change in the
// machine's speed during the run weighs on all alike.
const rounds = Number(process.env.BENCH_ROUNDS ?? 4);
const pageSize = 100;

let clock = Date.now();
const tick = () => new Date((clock += 1));

function rec(run: { runId: string; agentId: string; sessionId?: string }, type: string, payload: object): RecordInput {
  return {
    key: randomUUID(),
    runId: run.runId,
    agentId: run.agentId,
    ...(run.sessionId ? { sessionId: run.sessionId } : {}),
    type,
    timestamp: tick(),
    payload: encodePayload(payload),
  };
}

async function startRun(store: RuntimeStore, sessionId: string) {
  const run = { runId: randomUUID(), agentId: 'bench.agent', sessionId };
  const startedAt = tick();
  await store.startRootRun({
    ...run,
    startedAt,
    started: { ...rec(run, RecordType.RunStarted, {}), timestamp: startedAt },
    canceled: rec(run, RecordType.RunCompleted, { status: 'canceled', reason: 'session_ended' }),
  });
  return run;
}

interface Round {
  latencies: number[];
  seconds: number;
}

/** One round's share of the runs: each started, then ended; both timed. */
async function lifecycleRound(store: RuntimeStore, sessionId: string): Promise<{ starts: Round; terminals: Round }> {
  const starts: number[] = [];
  const terminals: number[] = [];
  const begin = process.hrtime.bigint();
  for (let i = 0; i < Math.ceil(lifecycleRuns / rounds); i++) {
    const run = await timed(starts, () => startRun(store, sessionId));
    await timed(terminals, () =>
      store.recordRunTerminal({ runId: run.runId, status: 'completed', record: rec(run, RecordType.RunCompleted, { status: 'completed' }) }),
    );
  }
  const seconds = Number(process.hrtime.bigint() - begin) / 1e9;
  return { starts: { latencies: starts, seconds }, terminals: { latencies: terminals, seconds } };
}

async function appends(store: RuntimeStore): Promise<Round & { runId: string }> {
  const runs = [];
  for (let w = 0; w < writers; w++) {
    const sessionId = randomUUID();
    await store.createSession(sessionId, tick());
    runs.push(await startRun(store, sessionId));
  }
  const latencies: number[] = [];
  const payload = { text: 'x'.repeat(200) };
  const begin = process.hrtime.bigint();
  await Promise.all(
    runs.map(async (run) => {
      for (let i = 0; i < appendsPerWriter; i++) await timed(latencies, () => store.appendRunRecord(rec(run, 'bench.note', payload)));
    }),
  );
  return { latencies, seconds: Number(process.hrtime.bigint() - begin) / 1e9, runId: runs[0]!.runId };
}

async function plainInserts(pool: Pool): Promise<Round> {
  await pool.query(`CREATE TABLE IF NOT EXISTS bench_plain (id bigserial PRIMARY KEY, run_id text NOT NULL, event_key text NOT NULL,
    agent_id text NOT NULL, session_id text, record_type text NOT NULL, payload bytea NOT NULL, recorded_at timestamptz NOT NULL)`);
  const latencies: number[] = [];
  const payload = encodePayload({ text: 'x'.repeat(200) });
  const begin = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: writers }, async () => {
      const runId = randomUUID();
      for (let i = 0; i < appendsPerWriter; i++) {
        await timed(latencies, () =>
          pool.query(
            'INSERT INTO bench_plain (run_id, event_key, agent_id, session_id, record_type, payload, recorded_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
            [runId, randomUUID(), 'bench.agent', runId, 'bench.note', payload, tick()],
          ),
        );
      }
    }),
  );
  return { latencies, seconds: Number(process.hrtime.bigint() - begin) / 1e9 };
}

function summarizeRounds(name: string, rounds: Round[]): Summary {
  const seconds = rounds.reduce((sum, round) => sum + round.seconds, 0);
  return summarize(
    `${name}, ${rounds.length} rounds`,
    rounds.flatMap((round) => round.latencies),
    seconds,
  );
}

async function pageReads(store: RuntimeStore, runId: string): Promise<Summary> {
  const latencies: number[] = [];
  const begin = Date.now();
  for (let round = 0; round < 5; round++) {
    let cursor = '';
    do {
      cursor = (await timed(latencies, () => store.listRunRecords(runId, cursor, pageSize))).nextCursor;
    } while (cursor);
  }
  return summarize(`listRunRecords, pages of ${pageSize}`, latencies, (Date.now() - begin) / 1000);
}

async function bench(databaseUrl: string): Promise<void> {
  const pool = createPool(databaseUrl, { size: writers + 2 });
  const store = createRuntimeStore(pool);
  try {
    const sessionId = randomUUID();
    await store.createSession(sessionId, tick());
    const measured = { starts: [] as Round[], terminals: [] as Round[], baseline: [] as Round[], appends: [] as Round[] };
    let runId = '';
    for (let round = 0; round < rounds; round++) {
      const lifecycle = await lifecycleRound(store, sessionId);
      measured.starts.push(lifecycle.starts);
      measured.terminals.push(lifecycle.terminals);
      measured.baseline.push(await plainInserts(pool));
      const appended = await appends(store);
      measured.appends.push(appended);
      runId = appended.runId;
    }
    const starts = summarizeRounds('lifecycle: startRootRun', measured.starts);
    const terminals = summarizeRounds('lifecycle: recordRunTerminal', measured.terminals);
    const appended = summarizeRounds(`appendRunRecord, ${writers} writers`, measured.appends);
    const baseline = summarizeRounds(`plain INSERT baseline, ${writers} writers`, measured.baseline);
    printTable([starts, terminals, appended, baseline, await pageReads(store, runId)]);
    const ratio = appended.opsPerSecond / baseline.opsPerSecond;
    const lifecycleP99 = Math.max(starts.p99, terminals.p99);
    console.log(
      `\nlifecycle transaction p99: ${lifecycleP99.toFixed(2)} ms, ${(lifecycleP99 / baseline.p99).toFixed(2)}x a plain INSERT's p99 (target <= 1.5x)`,
    );
    console.log(`appends: ${appended.opsPerSecond.toFixed(0)}/s, ${ratio.toFixed(2)}x plain INSERTs' rate (target >= 0.6x)`);
  } finally {
    await pool.end();
  }
}

withScratchDatabase('weft_bench', bench).catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
