// Tool platform benchmark: `npx tsx bench/tools-bench.ts` (BENCH_CALLS, BENCH_PYTHON_RUNS,
// BENCH_POOL_SIZE).
//
// Registry overhead: the calculator called through the registry (schema validation, rate limit,
// timeout, typed outcome) beside the same function called directly, interleaved. python_executor:
// cold (a new container: process start and the interpreter restored from its snapshot), warm (a
// waiting process), and load on a pool of BENCH_POOL_SIZE (default 2, Weft's default
// WEFT_SANDBOX_POOL_SIZE) that refills in the background while the load goes on, never waited for:
// 20 programs back to back, 5 rounds of 4 at once, and a burst of 4x the pool at once. Then the
// resident memory of one sandbox process and of all of them together (the pool's total).
import { readFileSync, readdirSync } from 'node:fs';
import { calculate, calculatorTool } from '../core/tools/builtin/calculator';
import { createPythonSandbox } from '../core/tools/python/python-sandbox';
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

/** The resident sets of the running sandbox processes, in MB. */
function sandboxRssMb(): number[] {
  const sizes: number[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      // The interpreter inside its container (bwrap and the container's init hold a few MB).
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('/sandbox/runner.cjs')) continue;
      sizes.push(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024);
    } catch {
      // the process ended meanwhile
    }
  }
  return sizes;
}

const checked = (result: { stdout: string; error?: string }) => {
  if (!result.stdout.startsWith('{"mean": 115.9')) throw new Error(`unexpected output: ${result.stdout}${result.error ?? ''}`);
};

/** With no interpreter waiting: a new container whose interpreter starts from the snapshot. */
async function coldStarts(): Promise<Summary> {
  const sandbox = createPythonSandbox({ outputLimitBytes: 64 * 1024, poolSize: 0 });
  const cold: number[] = [];
  try {
    await sandbox.prewarm(limits.memoryMb);
    for (let i = 0; i < Math.min(pythonRuns, 5); i += 1) checked(await timed(cold, () => sandbox.run(program, limits)));
  } finally {
    sandbox.close();
  }
  return summarize('python_executor, cold (new container, snapshot)', cold, 0);
}

/** One program at a time, each finding a waiting interpreter. */
async function warmStarts(): Promise<Summary> {
  const sandbox = createPythonSandbox({ outputLimitBytes: 64 * 1024, poolSize: 1 });
  const warm: number[] = [];
  try {
    for (let i = 0; i < pythonRuns; i += 1) {
      await sandbox.prewarm(limits.memoryMb);
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
    await sandbox.prewarm(limits.memoryMb);
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

async function python(): Promise<{ rows: Summary[]; peakRssMb: number; peakTotalRssMb: number }> {
  let peakRssMb = 0;
  let peakTotalRssMb = 0;
  const sampler = setInterval(() => {
    const sizes = sandboxRssMb();
    peakRssMb = Math.max(peakRssMb, ...sizes);
    peakTotalRssMb = Math.max(
      peakTotalRssMb,
      sizes.reduce((a, b) => a + b, 0),
    );
  }, 20);
  try {
    const rows = [await coldStarts(), await warmStarts(), ...(await pooled())];
    return { rows, peakRssMb, peakTotalRssMb };
  } finally {
    clearInterval(sampler);
  }
}

async function main(): Promise<void> {
  const overhead = await registryOverhead();
  const { rows, peakRssMb, peakTotalRssMb } = await python();
  printTable([...overhead, ...rows].map((row) => ({ ...row, opsPerSecond: NaN })));
  console.log(`\nregistry overhead: +${(overhead[1]!.p50 - overhead[0]!.p50).toFixed(3)} ms p50 per call (target <= 2 ms)`);
  const [cold, warm, backToBack, atOnce, burst] = rows;
  console.log(`python_executor: warm p50 ${warm!.p50.toFixed(1)} ms (target <= 50 ms), cold p50 ${cold!.p50.toFixed(0)} ms (target <= 3000 ms)`);
  console.log(
    `pool of ${poolSize}, refilling under load: 20 back to back p50 ${backToBack!.p50.toFixed(1)} ms, p99 ${backToBack!.p99.toFixed(1)} ms (targets <= 50 / <= 250 ms); 4 at once p50 ${atOnce!.p50.toFixed(1)} ms (target <= 100 ms); ${4 * poolSize} at once p50 ${burst!.p50.toFixed(0)} ms, p99 ${burst!.p99.toFixed(0)} ms`,
  );
  console.log(`sandbox process peak RSS: ${peakRssMb.toFixed(0)} MB each (target <= 256 MB), ${peakTotalRssMb.toFixed(0)} MB all together at the peak`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
