// Tool platform benchmark: `npx tsx bench/tools-bench.ts` (BENCH_CALLS, BENCH_PYTHON_RUNS,
// BENCH_POOL_SIZE).
//
// Registry overhead: the calculator called through the registry (schema validation, rate limit,
// timeout, typed outcome) beside the same function called directly, interleaved. python_executor:
// a worker's first program (the sandbox created and its pool warming, as a worker does at start,
// in a process that has not started one before), cold (no sandbox waiting: a new container and
// interpreter per program), warm (a waiting sandbox), and load on a pool of BENCH_POOL_SIZE
// (default 2, Weft's default WEFT_SANDBOX_POOL_SIZE) that refills on every take while the load
// goes on, never waited for: 20 programs back to back, 5 rounds of 4 at once, and a burst of 4x
// the pool at once. Then the memory (PSS) of each idle warm sandbox and of all of them together.
import { calculate, calculatorTool } from '../core/tools/builtin/calculator';
import { createPythonSandbox } from '../core/tools/python/python-sandbox';
import { treePssBytes } from '../core/tools/python/process-tree';
import { createToolRegistry } from '../core/tools/registry';
import { printTable, summarize, timed, type Summary } from './stats';

const calls = Number(process.env.BENCH_CALLS ?? 20_000);
const pythonRuns = Number(process.env.BENCH_PYTHON_RUNS ?? 15);
// Weft's default pool (WEFT_SANDBOX_POOL_SIZE); each waiting interpreter holds memory, so deployments size it to their bursts.
const poolSize = Number(process.env.BENCH_POOL_SIZE ?? 2);
const limits = { timeoutMs: 30_000, memoryMb: 512 };
// A typical agent program: a little data, the standard library, printed JSON.
const program =
  'import json, statistics\nsales = [120, 80, 150.5, 99, 130]\nprint(json.dumps({"mean": statistics.mean(sales), "stdev": round(statistics.stdev(sales), 2)}))';

async function registryOverhead(): Promise<Summary[]> {
  const registry = createToolRegistry([calculatorTool], { rateLimits: { CALCULATOR_RATE_LIMIT: 0 } });
  const context = { tenantId: 'bench', userId: 'u', roles: [], sessionId: '', taskId: 'bench' };
  const direct: number[] = [];
  const viaRegistry: number[] = [];
  for (let i = 0; i < calls; i += 1) {
    const expression = `(${i} + 3) * 4 / 2`;
    await timed(direct, async () => calculate(expression));
    await timed(viaRegistry, () => registry.execute('calculator', { expression }, context));
  }
  return [summarize('calculator, direct', direct, 0), summarize('calculator, through the registry', viaRegistry, 0)];
}

const checked = (result: { stdout: string; error?: string }) => {
  if (!result.stdout.startsWith('{"mean": 115.9')) throw new Error(`unexpected output: ${result.stdout}${result.error ?? ''}`);
};

/** A worker's first program: the sandbox created and warming (as the worker does at start), the program sent at once. */
async function firstProgram(): Promise<Summary> {
  const first: number[] = [];
  const sandbox = createPythonSandbox({ outputLimitBytes: 64 * 1024, poolSize });
  try {
    await timed(first, async () => {
      const warming = sandbox.prewarm();
      checked(await sandbox.run(program, limits));
      await warming;
    });
  } finally {
    sandbox.close();
  }
  return summarize("python_executor, a worker's first program", first, 0);
}

/** With no sandbox waiting: a new container and interpreter per program. */
async function coldStarts(): Promise<Summary> {
  const sandbox = createPythonSandbox({ outputLimitBytes: 64 * 1024, poolSize: 0 });
  const cold: number[] = [];
  try {
    for (let i = 0; i < Math.min(pythonRuns, 5); i += 1) checked(await timed(cold, () => sandbox.run(program, limits)));
  } finally {
    sandbox.close();
  }
  return summarize('python_executor, cold (new container and interpreter)', cold, 0);
}

/** One program at a time, each finding a waiting interpreter. */
async function warmStarts(): Promise<Summary> {
  const sandbox = createPythonSandbox({ outputLimitBytes: 64 * 1024, poolSize: 1 });
  const warm: number[] = [];
  try {
    for (let i = 0; i < pythonRuns; i += 1) {
      await sandbox.prewarm();
      checked(await timed(warm, () => sandbox.run(program, limits)));
    }
  } finally {
    sandbox.close();
  }
  return summarize('python_executor, warm (waiting process)', warm, 0);
}

/** Load on one pool, filled once at the start and then refilling in the background under the load. */
async function pooled(): Promise<Summary[]> {
  const sandbox = createPythonSandbox({ outputLimitBytes: 64 * 1024, poolSize });
  const backToBack: number[] = [];
  const concurrent: number[] = [];
  const burst: number[] = [];
  const atOnce = (count: number, latencies: number[]) =>
    Promise.all(Array.from({ length: count }, () => timed(latencies, () => sandbox.run(program, limits)).then(checked)));
  try {
    await sandbox.prewarm();
    for (let i = 0; i < 20; i += 1) checked(await timed(backToBack, () => sandbox.run(program, limits)));
    for (let round = 0; round < 5; round += 1) await atOnce(4, concurrent);
    await atOnce(4 * poolSize, burst);
  } finally {
    sandbox.close();
  }
  return [
    summarize(`python_executor, 20 back to back (pool ${poolSize})`, backToBack, 0),
    summarize(`python_executor, 4 at once x5 (pool ${poolSize})`, concurrent, 0),
    summarize(`python_executor, ${4 * poolSize} at once (pool ${poolSize})`, burst, 0),
  ];
}

/** The memory (PSS) of each sandbox of a full, idle pool, in MB. */
async function idlePoolPssMb(): Promise<number[]> {
  const sandbox = createPythonSandbox({ outputLimitBytes: 64 * 1024, poolSize });
  try {
    await sandbox.prewarm();
    return sandbox.pool().waiting.map((pid) => treePssBytes(pid) / 1024 / 1024);
  } finally {
    sandbox.close();
  }
}

async function main(): Promise<void> {
  const overhead = await registryOverhead();
  const rows = [await firstProgram(), await coldStarts(), await warmStarts(), ...(await pooled())];
  const idlePss = await idlePoolPssMb();
  printTable([...overhead, ...rows].map((row) => ({ ...row, opsPerSecond: NaN })));
  console.log(`\nregistry overhead: +${(overhead[1]!.p50 - overhead[0]!.p50).toFixed(3)} ms p50 per call (target <= 2 ms)`);
  const [first, cold, warm, backToBack, atOnce, burst] = rows;
  console.log(
    `python_executor: a worker's first program ${first!.p50.toFixed(0)} ms (target <= 1000 ms); warm p50 ${warm!.p50.toFixed(1)} ms; cold p50 ${cold!.p50.toFixed(0)} ms`,
  );
  console.log(
    `pool of ${poolSize}, refilling on every take: 20 back to back p50 ${backToBack!.p50.toFixed(1)} ms, p99 ${backToBack!.p99.toFixed(1)} ms (target p50 <= 30 ms); 4 at once p50 ${atOnce!.p50.toFixed(1)} ms (target <= 60 ms); ${4 * poolSize} at once p50 ${burst!.p50.toFixed(0)} ms, p99 ${burst!.p99.toFixed(0)} ms (target p50 <= 150 ms)`,
  );
  console.log(
    `idle warm sandbox memory (PSS): ${idlePss.map((mb) => mb.toFixed(1)).join(', ')} MB each (target <= 20 MB), ${idlePss.reduce((a, b) => a + b, 0).toFixed(1)} MB all ${idlePss.length} together`,
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
