// Orchestration benchmark: `npx tsx bench/orchestration-bench.ts`. Starts its own Temporal dev
// server and database (as `make test` does), then measures, in the same run:
// - end-to-end latency of a STANDARD task with one model call (gRPC SubmitTask -> result) and of a
//   bare Temporal workflow with the same three activity round trips; and, to tell Weft's own cost
//   from the model call's, of a bare workflow whose middle activity makes the same model call;
// - throughput of all three over BENCH_SECONDS each (default 60) with BENCH_CONCURRENCY tasks in
//   flight, in BENCH_SLICES slices (default 6) taken in turns so that the machine's drifting speed
//   weighs on each alike;
// - the Weft worker's RSS with 100 tasks in flight;
// - for each throughput phase, the CPU each part used per task (Temporal, Postgres, the worker,
//   the bench's own process with the API): on this 2-core machine throughput follows CPU per task.
// BENCH_WORKER_NODE_FLAGS (space-separated) runs the worker with other Node flags than `make up`'s.
// Both workers run in their own processes; the model is the scripted OpenAI-compatible server.
import { randomUUID } from 'node:crypto';
import type { bareModelWorkflow, bareWorkflow } from './bare-workflows';
import { rssMb } from '../test/support/processes';
import { printTable, summarize, timed, type Summary } from './stats';
import { interleavedThroughput, loadSide } from './interleaved-load';
import { postgresCpu, temporalCpu } from './cpu-accounting';
import { startWeftBesideBare } from './weft-beside-bare';

const latencyRuns = Number(process.env.BENCH_RUNS ?? 50);
const seconds = Number(process.env.BENCH_SECONDS ?? 60);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
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

async function main(): Promise<void> {
  const bench = await startWeftBesideBare(process.env.BENCH_WORKER_NODE_FLAGS ? { workerNodeFlags: process.env.BENCH_WORKER_NODE_FLAGS.split(' ') } : {});
  const { temporal, weftWorker, bareWorker, bareQueue, model } = bench;
  model.on('bench in flight', { content: 'slow answer', delayMs: 4_000 });
  const idleRss = rssMb(weftWorker.pid!);
  const standardTask = async (query?: string) => temporal.workflow.getHandle(await bench.submitStandardTask(query)).result();
  const bare = () => temporal.workflow.execute<typeof bareWorkflow>('bareWorkflow', { taskQueue: bareQueue, workflowId: `bare-${randomUUID()}` });
  const bareWithModel = () =>
    temporal.workflow.execute<typeof bareModelWorkflow>('bareModelWorkflow', {
      taskQueue: bareQueue,
      workflowId: `bare-${randomUUID()}`,
      args: [`bench question ${randomUUID()}`],
    });

  try {
    const [weftLatency, bareLatency, bareModelLatency] = await sequentialLatencies([
      ['latency: STANDARD task, 1 model call', () => standardTask()],
      ['latency: bare workflow, 3 activities', bare],
      ['latency: bare workflow + the model call', bareWithModel],
    ]);
    const rows: Summary[] = [weftLatency!, bareLatency!, bareModelLatency!];

    // The bench's process holds the API, the clients and the scripted model server.
    const shared = [temporalCpu, postgresCpu, { name: 'bench process', pids: [process.pid] }];
    const bareCpu = [...shared, { name: 'worker', pids: [bareWorker.pid!] }];
    const [weftThroughput, bareThroughput, bareModelThroughput] = (await interleavedThroughput(
      [
        loadSide(`throughput: STANDARD tasks, ${concurrency} in flight`, () => standardTask(), [...shared, { name: 'worker', pids: [weftWorker.pid!] }]),
        loadSide(`throughput: bare workflows, ${concurrency} in flight`, bare, bareCpu),
        loadSide(`throughput: bare + the model call, ${concurrency} in flight`, bareWithModel, bareCpu),
      ],
      { seconds, slices, concurrency },
    )) as [Summary, Summary, Summary];
    rows.push(weftThroughput, bareThroughput, bareModelThroughput);

    let peakRss = rssMb(weftWorker.pid!);
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssMb(weftWorker.pid!))), 100);
    await Promise.all(Array.from({ length: inFlight }, () => standardTask(`bench in flight ${randomUUID()}`)));
    clearInterval(sampler);

    console.log('');
    printTable(rows.map((r) => (r.name.startsWith('latency') ? { ...r, opsPerSecond: NaN } : r)));
    console.log(`\nlatency ratio (p50 STANDARD / p50 bare): ${(weftLatency!.p50 / bareLatency!.p50).toFixed(2)} (target <= 1.1)`);
    console.log(
      `latency ratio with the model call on both sides (p50 STANDARD / p50 bare + the model call): ${(weftLatency!.p50 / bareModelLatency!.p50).toFixed(2)}`,
    );
    console.log(`throughput ratio (STANDARD / bare): ${(weftThroughput.opsPerSecond / bareThroughput.opsPerSecond).toFixed(2)} (target >= 0.85)`);
    console.log(
      `throughput ratio with the model call on both sides (STANDARD / bare + the model call): ${(weftThroughput.opsPerSecond / bareModelThroughput.opsPerSecond).toFixed(2)}`,
    );
    console.log(`worker RSS: ${idleRss.toFixed(0)} MB idle, peak ${peakRss.toFixed(0)} MB with ${inFlight} tasks in flight (target <= 300 MB)`);
  } finally {
    await bench.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
