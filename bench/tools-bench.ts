// Tool platform benchmark: `npx tsx bench/tools-bench.ts` (BENCH_CALLS, BENCH_PYTHON_RUNS).
//
// Registry overhead: the calculator called through the registry (schema validation, rate limit,
// timeout, typed outcome) beside the same function called directly, interleaved. python_executor:
// cold (a new sandbox: process start and interpreter load) and warm (a waiting process), and the
// resident memory of sandbox processes sampled while they run.
import { readFileSync, readdirSync } from 'node:fs';
import { calculate, calculatorTool } from '../core/tools/builtin/calculator';
import { createPythonSandbox } from '../core/tools/python/python-sandbox';
import { createToolRegistry } from '../core/tools/registry';
import { printTable, summarize, timed, type Summary } from './stats';

const calls = Number(process.env.BENCH_CALLS ?? 20_000);
const pythonRuns = Number(process.env.BENCH_PYTHON_RUNS ?? 15);
const limits = { timeoutMs: 30_000, memoryMb: 512 };
// A typical agent program: a little data, the standard library, printed JSON.
const program = 'import json, statistics\nsales = [120, 80, 150.5, 99, 130]\nprint(json.dumps({"mean": statistics.mean(sales), "stdev": round(statistics.stdev(sales), 2)}))';

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

/** The largest resident set among running sandbox processes, in MB. */
function sandboxRssMb(): number {
  let largest = 0;
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('sandbox-runner.cjs')) continue;
      const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
      largest = Math.max(largest, kb / 1024);
    } catch {
      // the process ended meanwhile
    }
  }
  return largest;
}

async function python(): Promise<{ rows: Summary[]; peakRssMb: number }> {
  const cold: number[] = [];
  for (let i = 0; i < Math.min(pythonRuns, 5); i += 1) {
    const sandbox = createPythonSandbox({ outputLimitBytes: 64 * 1024 });
    await timed(cold, () => sandbox.run(program, limits));
    sandbox.close();
  }
  const sandbox = createPythonSandbox({ outputLimitBytes: 64 * 1024 });
  const warm: number[] = [];
  let peakRssMb = 0;
  const sampler = setInterval(() => (peakRssMb = Math.max(peakRssMb, sandboxRssMb())), 20);
  try {
    for (let i = 0; i < pythonRuns; i += 1) {
      await sandbox.prewarm(limits.memoryMb);
      const result = await timed(warm, () => sandbox.run(program, limits));
      if (!result.stdout.startsWith('{"mean": 115.9')) throw new Error(`unexpected output: ${result.stdout}${result.error ?? ''}`);
    }
  } finally {
    clearInterval(sampler);
    sandbox.close();
  }
  return { rows: [summarize('python_executor, cold (new process)', cold, 0), summarize('python_executor, warm (waiting process)', warm, 0)], peakRssMb };
}

async function main(): Promise<void> {
  const overhead = await registryOverhead();
  const { rows, peakRssMb } = await python();
  printTable([...overhead, ...rows].map((row) => ({ ...row, opsPerSecond: NaN })));
  console.log(`\nregistry overhead: +${(overhead[1]!.p50 - overhead[0]!.p50).toFixed(3)} ms p50 per call (target <= 2 ms)`);
  console.log(`python_executor: warm p50 ${rows[1]!.p50.toFixed(1)} ms (target <= 50 ms), cold p50 ${rows[0]!.p50.toFixed(0)} ms (target <= 5000 ms)`);
  console.log(`sandbox process peak RSS: ${peakRssMb.toFixed(0)} MB (target <= 256 MB)`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
