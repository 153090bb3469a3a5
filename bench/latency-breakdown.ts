// Where a STANDARD task's latency goes: `npx tsx bench/latency-breakdown.ts`. Runs BENCH_RUNS
// (default 40) STANDARD tasks and as many bare tasks (the same model call, its end recorded), one at a
// time and taking turns, on their own workers (as bench/orchestration-bench.ts does), then reads
// each workflow's history and splits its time by the server's event times:
// - before the worker: submit (gRPC SubmitTask, or the client's start) until the first workflow task starts;
// - workflow tasks: started until completed (on both sides the end runs in them, as a local activity);
// - activities: started until completed (the model step, or the bare activities);
// - dispatch: every wait between a task being scheduled and a worker starting it;
// - to the caller: the workflow's completion until the caller holds the result.
// Medians per phase, summed per workflow, and each side's share of the difference.
import { randomUUID } from 'node:crypto';
import { phases, splitTime } from './history-phases';
import { median } from './stats';
import { startWeftBesideBare } from './weft-beside-bare';

const runs = Number(process.env.BENCH_RUNS ?? 40);

async function main(): Promise<void> {
  const bench = await startWeftBesideBare();
  const timedRun = async (start: () => Promise<string>) => {
    const submittedAt = Date.now();
    const workflowId = await start();
    const handle = bench.temporal.workflow.getHandle(workflowId);
    const total = await handle.result().then(() => Date.now() - submittedAt);
    const { events } = await handle.fetchHistory();
    return { total, split: splitTime(events!, submittedAt, submittedAt + total) };
  };
  const sides = {
    'STANDARD task': () => bench.submitStandardTask(),
    'bare task': async () =>
      (
        await bench.temporal.workflow.start('bareTaskWorkflow', {
          taskQueue: bench.bareQueue,
          workflowId: `bare-${randomUUID()}`,
          args: [`bench question ${randomUUID()}`],
        })
      ).workflowId,
  };
  try {
    const measured = Object.fromEntries(Object.keys(sides).map((name) => [name, [] as Array<Awaited<ReturnType<typeof timedRun>>>]));
    for (let i = 0; i < runs + 5; i++) {
      for (const [name, start] of Object.entries(sides)) {
        const run = await timedRun(start);
        if (i >= 5) measured[name]!.push(run);
      }
    }
    const [weft, bare] = Object.values(measured) as [(typeof measured)[string], (typeof measured)[string]];
    const row = (label: string, of: (run: (typeof weft)[number]) => number) => {
      const [w, b] = [median(weft.map(of)), median(bare.map(of))];
      console.log(`${label.padEnd(20)} ${w.toFixed(1).padStart(8)} ${b.toFixed(1).padStart(8)} ${(w - b).toFixed(1).padStart(8)}`);
    };
    console.log(`\nmedians of ${runs} runs each, ms    STANDARD   bare task   difference`);
    for (const phase of phases) row(phase, (run) => run.split[phase]);
    row('end to end', (run) => run.total);
    console.log(`latency ratio (p50 STANDARD / p50 bare task): ${(median(weft.map((r) => r.total)) / median(bare.map((r) => r.total))).toFixed(2)}`);
  } finally {
    await bench.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
