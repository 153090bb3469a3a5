// Where a STANDARD task's latency goes: `npx tsx bench/latency-breakdown.ts`. Runs BENCH_RUNS
// (default 40) STANDARD tasks and as many bare tasks (the same model call, its end recorded), one at a
// time and taking turns, on their own workers (as bench/orchestration-bench.ts does), then reads
// each workflow's history and splits its time by the server's event times:
// - before the worker: submit (gRPC SubmitTask, or the client's start) until the first workflow task starts;
// - workflow tasks: started until completed (a STANDARD task's end runs in them, as a local activity);
// - activities: started until completed (the model step, or the bare activities);
// - dispatch: every wait between a task being scheduled and a worker starting it;
// - to the caller: the workflow's completion until the caller holds the result.
// Medians per phase, summed per workflow, and each side's share of the difference.
import { randomUUID } from 'node:crypto';
import type { temporal } from '@temporalio/proto';
import { startWeftBesideBare } from './weft-beside-bare';

const runs = Number(process.env.BENCH_RUNS ?? 40);
const phases = ['before the worker', 'workflow tasks', 'activities', 'dispatch', 'to the caller'] as const;
type Phase = (typeof phases)[number];

const EventType = { WftScheduled: 5, WftStarted: 6, WftCompleted: 7, ActScheduled: 10, ActStarted: 11, ActCompleted: 12 } as const;
const msOf = (time: temporal.api.history.v1.IHistoryEvent['eventTime']) => Number(time!.seconds) * 1000 + (time!.nanos ?? 0) / 1e6;

/** One workflow's time split into the phases, from its history and the caller's clock. */
function splitTime(events: temporal.api.history.v1.IHistoryEvent[], submittedAt: number, resultAt: number): Record<Phase, number> {
  const split: Record<Phase, number> = { 'before the worker': 0, 'workflow tasks': 0, activities: 0, dispatch: 0, 'to the caller': 0 };
  let scheduledAt = 0;
  let startedAt = 0;
  for (const event of events) {
    const at = msOf(event.eventTime);
    const type = Number(event.eventType);
    if (type === EventType.WftScheduled || type === EventType.ActScheduled) scheduledAt = at;
    if (type === EventType.WftStarted || type === EventType.ActStarted) {
      if (split['before the worker'] === 0) split['before the worker'] = at - submittedAt;
      else split.dispatch += at - scheduledAt;
      startedAt = at;
    }
    if (type === EventType.WftCompleted) split['workflow tasks'] += at - startedAt;
    if (type === EventType.ActCompleted) split.activities += at - startedAt;
  }
  split['to the caller'] = resultAt - msOf(events.at(-1)!.eventTime);
  return split;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

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
