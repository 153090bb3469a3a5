// What one call into a workflow's V8 context costs: `npx tsx bench/vm-call-bench.ts` (BENCH_CALLS,
// default 5,000). Temporal's TypeScript worker enters a workflow's context several times per
// activation (activate, unblock conditions, conclude, and once to create and once to dispose of each
// workflow), each time with `isolateExecutionTimeout` (5 s by default) as node:vm's `timeout`; Node
// runs every such call under a watchdog thread of its own, started and joined per call
// (nodejs/node#47739). This prints the same trivial call with the SDK's timeout and without one, in
// wall and CPU microseconds, this machine, this run, and their ratio: the price per call that every
// workflow task of every workflow pays, Weft's and the bare baselines' alike, so a task's cost in the
// worker's workflow thread follows its number of activations.
import vm from 'node:vm';

const calls = Number(process.env.BENCH_CALLS ?? 5_000);
const sdkTimeoutMs = 5_000;

function perCall(options: vm.RunningScriptOptions): { wallUs: number; cpuUs: number } {
  const context = vm.createContext({});
  const script = new vm.Script('globalThis.n = (globalThis.n ?? 0) + 1');
  for (let i = 0; i < 200; i++) script.runInContext(context, options);
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < calls; i++) script.runInContext(context, options);
  const wallUs = ((performance.now() - started) * 1_000) / calls;
  const used = process.cpuUsage(cpu);
  return { wallUs, cpuUs: (used.user + used.system) / calls };
}

const without = perCall({});
const withTimeout = perCall({ timeout: sdkTimeoutMs });
console.log(`${calls} calls into a V8 context, each side (this machine, this run):`);
console.log(`  without a timeout: ${without.wallUs.toFixed(1)} us wall, ${without.cpuUs.toFixed(1)} us CPU per call`);
console.log(`  with the SDK's ${sdkTimeoutMs} ms timeout: ${withTimeout.wallUs.toFixed(1)} us wall, ${withTimeout.cpuUs.toFixed(1)} us CPU per call`);
console.log(`  ratio (with / without): wall ${(withTimeout.wallUs / without.wallUs).toFixed(0)}x, CPU ${(withTimeout.cpuUs / without.cpuUs).toFixed(0)}x`);
