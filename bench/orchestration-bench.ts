// Orchestration benchmark: `npx tsx bench/orchestration-bench.ts`. Starts its own Temporal dev
// server and database (as `make test` does), then measures in the same run a STANDARD task (gRPC
// SubmitTask -> result: one model call, its start and end recorded in the store) beside its
// like-for-like baseline, a bare Temporal workflow doing the same job in the task's shape: one
// activity that makes the same streamed model call with the openai client, then the end as a local
// activity that records the answer in Postgres with one INSERT (bench/bare-workflows,
// bareTaskWorkflow). The model call alone (modelCallWorkflow) runs beside both as a reference.
// Every worker runs in its own process; the model is the scripted OpenAI-compatible server,
// answering at once.
// - latency: BENCH_RUNS of each (default 50), one at a time, taking turns;
// - throughput over BENCH_SECONDS per side (default 60) at each of BENCH_CONCURRENCY in flight
//   (default "16 64"), in BENCH_SLICES slices (default 6) taken in turns, so the machine's drifting
//   speed weighs on every side alike; and the CPU each part used per task (Temporal, Postgres, the
//   worker by kind of thread, the bench's own process with the API): on this 2-core machine
//   throughput follows CPU per task;
// - the Weft worker's RSS with 100 tasks in flight.
// Ratios are Weft / baseline (and Weft / the reference) in this run; the absolute milliseconds are
// this machine's, this run's.
// BENCH_WORKER_NODE_FLAGS (space-separated) runs the worker with other Node flags than `make up`'s.
import { randomUUID } from 'node:crypto';
import type { bareTaskWorkflow, modelCallWorkflow } from './bare-workflows';
import { rssMb } from '../test/support/processes';
import { printTable, summarize, timed, type Summary } from './stats';
import { interleavedThroughput, loadSide } from './interleaved-load';
import { postgresCpu, temporalCpu, workerThreadParts } from './cpu-accounting';
import { startWeftBesideBare } from './weft-beside-bare';

const latencyRuns = Number(process.env.BENCH_RUNS ?? 50);
const seconds = Number(process.env.BENCH_SECONDS ?? 60);
const concurrencies = (process.env.BENCH_CONCURRENCY ?? '16 64').split(/[ ,]+/).map(Number);
const slices = Number(process.env.BENCH_SLICES ?? 6);
const inFlight = 100;

/** Each path run BENCH_RUNS times, one at a time, taking turns (after five warm-up rounds). */
async function sequentialLatencies(paths: Array<[name: string, runOne: () => Promise<unknown>]>): Promise<Summary[]> {
  for (let i = 0; i < 5; i++) await Promise.all(paths.map(([, runOne]) => runOne()));
  const latencies = paths.map((): number[] => []);
  for (let i = 0; i < latencyRuns; i++) {
    for (const [index, [, runOne]] of paths.entries()) await timed(latencies[index]!, runOne);
  }
  return paths.map(([name], index) => summarize(name, latencies[index]!, 1));
}

const ratio = (weft: number, bare: number) => (weft / bare).toFixed(2);

async function main(): Promise<void> {
  const bench = await startWeftBesideBare(process.env.BENCH_WORKER_NODE_FLAGS ? { workerNodeFlags: process.env.BENCH_WORKER_NODE_FLAGS.split(' ') } : {});
  const { temporal, weftWorker, bareWorker, bareQueue, model } = bench;
  model.on('bench in flight', { content: 'slow answer', delayMs: 4_000 });
  const idleRss = rssMb(weftWorker.pid!);
  const standardTask = async (query?: string) => temporal.workflow.getHandle(await bench.submitStandardTask(query)).result();
  const bare = (workflow: 'bareTaskWorkflow' | 'modelCallWorkflow') => () =>
    temporal.workflow.execute<typeof bareTaskWorkflow | typeof modelCallWorkflow>(workflow, {
      taskQueue: bareQueue,
      workflowId: `bare-${randomUUID()}`,
      args: [`bench question ${randomUUID()}`],
    });
  const bareTask = bare('bareTaskWorkflow');
  const modelCallAlone = bare('modelCallWorkflow');

  try {
    const [weftLatency, bareLatency, callLatency] = await sequentialLatencies([
      ['latency: STANDARD task', () => standardTask()],
      ['latency: bare task (the model call, its end recorded)', bareTask],
      ['latency: the model call alone', modelCallAlone],
    ]);
    const rows: Summary[] = [weftLatency!, bareLatency!, callLatency!];
    const lines = [
      `latency ratio (p50 STANDARD / p50 bare task): ${ratio(weftLatency!.p50, bareLatency!.p50)} (target <= 1.1); p99: ${ratio(weftLatency!.p99, bareLatency!.p99)}; p50 / the model call alone: ${ratio(weftLatency!.p50, callLatency!.p50)}`,
      `  this machine, this run: a STANDARD task p50 ${weftLatency!.p50.toFixed(1)} ms, p99 ${weftLatency!.p99.toFixed(1)} ms (1 model step); the bare task p50 ${bareLatency!.p50.toFixed(1)} ms; the model call alone p50 ${callLatency!.p50.toFixed(1)} ms`,
    ];

    // The bench's process holds the API, the clients and the scripted model server.
    const shared = [temporalCpu, postgresCpu, { name: 'bench process', pids: [process.pid] }];
    for (const concurrency of concurrencies) {
      const bareWorkerCpu = [...shared, ...workerThreadParts('worker', bareWorker.pid!)];
      const [weftThroughput, bareThroughput, callThroughput] = (await interleavedThroughput(
        [
          loadSide(`throughput: STANDARD tasks, ${concurrency} in flight`, () => standardTask(), [...shared, ...workerThreadParts('worker', weftWorker.pid!)]),
          loadSide(`throughput: bare tasks, ${concurrency} in flight`, bareTask, bareWorkerCpu),
          loadSide(`throughput: the model call alone, ${concurrency} in flight`, modelCallAlone, bareWorkerCpu),
        ],
        { seconds, slices, concurrency },
      )) as [Summary, Summary, Summary];
      rows.push(weftThroughput, bareThroughput, callThroughput);
      lines.push(
        `throughput ratio at ${concurrency} in flight (STANDARD / bare task): ${ratio(weftThroughput.opsPerSecond, bareThroughput.opsPerSecond)} (target >= 0.85); / the model call alone: ${ratio(weftThroughput.opsPerSecond, callThroughput.opsPerSecond)}`,
        `  this machine, this run: ${weftThroughput.opsPerSecond.toFixed(1)} STANDARD tasks/s (p50 ${weftThroughput.p50.toFixed(0)} ms each), ${bareThroughput.opsPerSecond.toFixed(1)} bare tasks/s (p50 ${bareThroughput.p50.toFixed(0)} ms), ${callThroughput.opsPerSecond.toFixed(1)} model calls alone/s`,
      );
    }

    let peakRss = rssMb(weftWorker.pid!);
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssMb(weftWorker.pid!))), 100);
    await Promise.all(Array.from({ length: inFlight }, () => standardTask(`bench in flight ${randomUUID()}`)));
    clearInterval(sampler);

    console.log('');
    printTable(rows.map((r) => (r.name.startsWith('latency') ? { ...r, opsPerSecond: NaN } : r)));
    console.log(['', ...lines].join('\n'));
    console.log(`worker RSS: ${idleRss.toFixed(0)} MB idle, peak ${peakRss.toFixed(0)} MB with ${inFlight} tasks in flight (target <= 300 MB)`);
  } finally {
    await bench.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
