// Queue fairness benchmark: `npx tsx bench/queue-fairness-bench.ts` (BENCH_QUIET_TASKS, default 600;
// BENCH_FLOOD_RUNNING, default 50; BENCH_FLOOD_STEP_MS, default 20000; BENCH_ACTIVITY_SLOTS, the
// worker's default unless set). On Temporal's real server as `make cluster` runs it
// (WEFT_TEST_TEMPORAL=dev for the dev server), with a Weft worker process and the API in this
// process (no per-tenant quotas, so the door lets the flood through). A quiet tenant runs STANDARD
// tasks one at a time, its model answering at once, and each is timed from SubmitTask until its
// result: alone, and while another tenant keeps BENCH_FLOOD_RUNNING tasks running whose model steps
// take BENCH_FLOOD_STEP_MS each (long, so that the flood holds the worker's slots without taking
// its two cores). The two phases alternate in rounds. Target: the quiet tenant's p99 under the
// flood <= 1.5x its p99 alone. With BENCH_ACTIVITY_SLOTS below the flood's tasks, their steps wait
// in the task queue: the server dispatches each tenant's in turn (the tenant is the fairness key),
// and WEFT_TEMPORAL_FAIRNESS=off runs the same first in, first out. 600 quiet tasks a side, so
// that a p99 is the 7th slowest of them (of 60, it was the slowest alone: two runs of the same code
// gave ratios of 1.13 and 2.64). Where the quiet tenant's time went, from each task's history
// (bench/history-phases.ts): each phase's median over all its tasks beside its mean over the
// slowest 1 % (the tail the p99 is in), alone and under the flood.
import { randomUUID } from 'node:crypto';
import { callUnary } from '../protos/clients';
import type { SubmitTaskRequest } from '../protos/generated/shannon/orchestrator/SubmitTaskRequest';
import type { SubmitTaskResponse__Output } from '../protos/generated/shannon/orchestrator/SubmitTaskResponse';
import { startTenantsBenchStack } from './tenants-bench-stack';
import { phases, splitTime, type Phase } from './history-phases';
import { median, printTable, summarize } from './stats';

process.env.WEFT_TEST_TEMPORAL ??= 'cluster';
const quietTasks = Number(process.env.BENCH_QUIET_TASKS ?? 600);
const floodRunning = Number(process.env.BENCH_FLOOD_RUNNING ?? 50);
const floodStepMs = Number(process.env.BENCH_FLOOD_STEP_MS ?? 20_000);
const activitySlots = process.env.BENCH_ACTIVITY_SLOTS;
const rounds = 3;

interface TaskRun {
  workflowId: string;
  submittedAt: number;
  resultAt: number;
}

const latencyOf = (run: TaskRun) => run.resultAt - run.submittedAt;
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
const cell = (ms: number) => ms.toFixed(1).padStart(8);

/** Each phase's median over the runs, and its mean over the slowest 1 % of them. */
async function printPhases(title: string, runs: TaskRun[], phasesOf: (run: TaskRun) => Promise<Record<Phase, number>>): Promise<void> {
  const splits: Array<Record<Phase, number>> = [];
  for (const run of runs) splits.push(await phasesOf(run));
  const slowestFirst = [...runs.keys()].sort((a, b) => latencyOf(runs[b]!) - latencyOf(runs[a]!));
  const tail = slowestFirst.slice(0, Math.max(1, Math.ceil(runs.length / 100))).map((index) => splits[index]!);
  console.log(`\n${title}, ms: median over ${runs.length} tasks, mean over the slowest ${tail.length}`);
  for (const phase of phases) console.log(`  ${phase.padEnd(18)} ${cell(median(splits.map((s) => s[phase])))} ${cell(mean(tail.map((s) => s[phase])))}`);
}

/** Temporal, Postgres, the scripted model, a worker process of `activitySlots` and the API; the two tenants' task runners. */
async function startQueueFairnessStack() {
  const stack = await startTenantsBenchStack({
    queuePrefix: 'bench-queue-fairness',
    quotas: { submitsPerMinute: 0, maxRunningTasks: 0 },
    workerEnv: activitySlots ? { WEFT_WORKER_ACTIVITY_SLOTS: activitySlots } : {},
  });
  stack.model.on('flood task', { content: 'slow answer', delayMs: floodStepMs });
  stack.model.on('quiet task', { content: 'quick answer' });
  const clients = [await stack.clientOf(`quiet-${randomUUID()}`), await stack.clientOf(`flooder-${randomUUID()}`)];
  /** A STANDARD task of the tenant, submitted and followed to its result; when, by the caller's clock. */
  const runnerOf = (client: (typeof clients)[number], query: string) => async (): Promise<TaskRun> => {
    const submittedAt = Date.now();
    const submitted = await callUnary<SubmitTaskRequest, SubmitTaskResponse__Output>(client.SubmitTask, client, { query: `${query} ${randomUUID()}` });
    await stack.temporal.workflow.getHandle(submitted.workflow_id).result();
    return { workflowId: submitted.workflow_id, submittedAt, resultAt: Date.now() };
  };
  return {
    quietTask: runnerOf(clients[0]!, 'quiet task'),
    floodTask: runnerOf(clients[1]!, 'flood task'),
    /** A finished task's time, split into the phases of its history. */
    async phasesOf(run: TaskRun): Promise<Record<Phase, number>> {
      const { events } = await stack.temporal.workflow.getHandle(run.workflowId).fetchHistory();
      return splitTime(events!, run.submittedAt, run.resultAt);
    },
    async stop() {
      for (const client of clients) client.close();
      await stack.stop();
    },
  };
}

async function main(): Promise<void> {
  const stack = await startQueueFairnessStack();
  const measured = { alone: [] as TaskRun[], flooded: [] as TaskRun[] };
  const measure = async (into: TaskRun[]) => {
    for (let i = 0; i < quietTasks / rounds; i++) into.push(await stack.quietTask());
  };
  let floodTasks = 0;
  /** The other tenant keeps `floodRunning` tasks running while the quiet tenant's are measured. */
  const measureFlooded = async (into: TaskRun[]) => {
    let on = true;
    const loops = Array.from({ length: floodRunning }, async () => {
      // Started over one step's time, as a tenant's tasks come: not all ending in the same instant.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * floodStepMs));
      while (on) {
        await stack.floodTask();
        floodTasks += 1;
      }
    });
    // The flood's steps fill the worker's slots and wait in the queue before the first quiet task.
    await new Promise((resolve) => setTimeout(resolve, floodStepMs));
    try {
      await measure(into);
    } finally {
      on = false;
      await Promise.all(loops);
    }
  };
  try {
    for (let i = 0; i < 5; i++) await stack.quietTask(); // warm up
    for (let round = 0; round < rounds; round++) {
      await measure(measured.alone);
      await measureFlooded(measured.flooded);
    }
    const latencies = (runs: TaskRun[]) => runs.map(latencyOf);
    const alone = summarize('quiet tenant task, submit to result, alone', latencies(measured.alone), 0);
    const flooded = summarize(`quiet tenant task, another tenant keeping ${floodRunning} running`, latencies(measured.flooded), 0);
    printTable([alone, flooded].map((row) => ({ ...row, opsPerSecond: NaN })));
    const server =
      process.env.WEFT_TEST_TEMPORAL === 'cluster'
        ? `Temporal's real server, fairness ${process.env.WEFT_TEMPORAL_FAIRNESS === 'off' ? 'off' : 'on'}`
        : 'the dev server (no fairness)';
    console.log(
      `\n${server}; worker activity slots ${activitySlots ?? 'as by default'}; the other tenant finished ${floodTasks} tasks of ${floodStepMs} ms steps`,
    );
    console.log(
      `quiet tenant p99 ratio, under the flood / alone: ${(flooded.p99 / alone.p99).toFixed(2)} (target <= 1.5); p50 ratio ${(flooded.p50 / alone.p50).toFixed(2)}`,
    );
    console.log(`  this machine, this run: p50 ${alone.p50.toFixed(0)} ms alone, ${flooded.p50.toFixed(0)} ms under the flood`);
    await printPhases("where the quiet tenant's time went, alone", measured.alone, stack.phasesOf);
    await printPhases("where the quiet tenant's time went, under the flood", measured.flooded, stack.phasesOf);
  } finally {
    await stack.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
