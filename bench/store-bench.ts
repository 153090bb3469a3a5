// Runtime store benchmark: `npx tsx bench/store-bench.ts` (DATABASE_URL picks the server; a
// scratch database weft_bench is created and dropped). Prints p50/p99 and ops/s for lifecycle
// transactions beside bare transactions writing the same rows (no checks), concurrent appends
// beside plain INSERTs (one statement, one commit), and page reads; measured on the same database
// in the same run, every side by BENCH_WRITERS writers at once (default 8).
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

/**
 * One round's share of the runs, by `writers` writers at once (as the baseline inserts), each in a
 * session of its own as concurrent tasks mostly are: each run started, then ended; both timed.
 */
async function lifecycleRound(store: RuntimeStore): Promise<{ starts: Round; terminals: Round }> {
  const starts: number[] = [];
  const terminals: number[] = [];
  const sessions = Array.from({ length: writers }, () => randomUUID());
  for (const sessionId of sessions) await store.createSession(sessionId, tick());
  const begin = process.hrtime.bigint();
  await Promise.all(
    sessions.map(async (sessionId) => {
      for (let i = 0; i < Math.ceil(lifecycleRuns / rounds / writers); i++) {
        const run = await timed(starts, () => startRun(store, sessionId));
        await timed(terminals, () =>
          store.recordRunTerminal({ runId: run.runId, status: 'completed', record: rec(run, RecordType.RunCompleted, { status: 'completed' }) }),
        );
      }
    }),
  );
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

/**
 * The lifecycle's baseline: the same rows a start and an end write (the run, its record, the
 * lifecycle row that says which record proved the change), each change in one bare transaction,
 * with no checks, by as many writers at once.
 */
async function bareLifecycleRound(pool: Pool): Promise<{ starts: Round; terminals: Round }> {
  await pool.query(`CREATE TABLE IF NOT EXISTS bench_runs (run_id text PRIMARY KEY, session_id text, status text NOT NULL, updated_at timestamptz NOT NULL);
    CREATE TABLE IF NOT EXISTS bench_lifecycle (run_id text NOT NULL, change text NOT NULL, record_id bigint NOT NULL, PRIMARY KEY (run_id, change))`);
  const payload = encodePayload({});
  const inTransaction = async (statements: Array<[string, unknown[]]>) => {
    const tx = await pool.connect();
    try {
      await tx.query('BEGIN');
      for (const [sql, values] of statements) await tx.query(sql, values);
      await tx.query('COMMIT');
    } finally {
      tx.release();
    }
  };
  const change = (runId: string, sessionId: string, kind: 'start' | 'terminal'): Array<[string, unknown[]]> => [
    kind === 'start'
      ? ['INSERT INTO bench_runs (run_id, session_id, status, updated_at) VALUES ($1, $2, $3, $4)', [runId, sessionId, 'running', tick()]]
      : ['UPDATE bench_runs SET status = $2, updated_at = $3 WHERE run_id = $1', [runId, 'completed', tick()]],
    [
      `WITH record AS (INSERT INTO bench_plain (run_id, event_key, agent_id, session_id, record_type, payload, recorded_at)
         VALUES ($1, $2, 'bench.agent', $3, $4, $5, $6) RETURNING id)
       INSERT INTO bench_lifecycle (run_id, change, record_id) SELECT $1, $4, id FROM record`,
      [runId, randomUUID(), sessionId, kind, payload, tick()],
    ],
  ];
  const starts: number[] = [];
  const terminals: number[] = [];
  const begin = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: writers }, async () => {
      const sessionId = randomUUID();
      for (let i = 0; i < Math.ceil(lifecycleRuns / rounds / writers); i++) {
        const runId = randomUUID();
        await timed(starts, () => inTransaction(change(runId, sessionId, 'start')));
        await timed(terminals, () => inTransaction(change(runId, sessionId, 'terminal')));
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - begin) / 1e9;
  return { starts: { latencies: starts, seconds }, terminals: { latencies: terminals, seconds } };
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
    const measured = {
      starts: [] as Round[],
      terminals: [] as Round[],
      bareStarts: [] as Round[],
      bareTerminals: [] as Round[],
      baseline: [] as Round[],
      appends: [] as Round[],
    };
    let runId = '';
    for (let round = 0; round < rounds; round++) {
      const lifecycle = await lifecycleRound(store);
      measured.starts.push(lifecycle.starts);
      measured.terminals.push(lifecycle.terminals);
      measured.baseline.push(await plainInserts(pool));
      const bare = await bareLifecycleRound(pool);
      measured.bareStarts.push(bare.starts);
      measured.bareTerminals.push(bare.terminals);
      const appended = await appends(store);
      measured.appends.push(appended);
      runId = appended.runId;
    }
    const starts = summarizeRounds(`lifecycle: startRootRun, ${writers} writers`, measured.starts);
    const terminals = summarizeRounds(`lifecycle: recordRunTerminal, ${writers} writers`, measured.terminals);
    const bareStarts = summarizeRounds(`bare transaction: a start's rows, ${writers} writers`, measured.bareStarts);
    const bareTerminals = summarizeRounds(`bare transaction: an end's rows, ${writers} writers`, measured.bareTerminals);
    const appended = summarizeRounds(`appendRunRecord, ${writers} writers`, measured.appends);
    const baseline = summarizeRounds(`plain INSERT baseline, ${writers} writers`, measured.baseline);
    printTable([starts, terminals, bareStarts, bareTerminals, appended, baseline, await pageReads(store, runId)]);
    const ratio = appended.opsPerSecond / baseline.opsPerSecond;
    const lifecycleP99 = Math.max(starts.p99, terminals.p99);
    const bareP99 = Math.max(bareStarts.p99, bareTerminals.p99);
    console.log(
      `\nlifecycle transaction p99: ${lifecycleP99.toFixed(2)} ms, ${(lifecycleP99 / bareP99).toFixed(2)}x a bare transaction writing the same rows (p99 ${bareP99.toFixed(2)} ms), ${(lifecycleP99 / baseline.p99).toFixed(2)}x a single plain INSERT's; p50 ${(starts.p50 / bareStarts.p50).toFixed(2)}x (start) and ${(terminals.p50 / bareTerminals.p50).toFixed(2)}x (end) the bare transaction's; all at the same concurrency`,
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
