// Workflow-shape benchmark: `npx tsx bench/workflow-shape-bench.ts`. What a STANDARD task's shape
// costs Temporal and the worker with nothing inside it, beside one bare activity:
// it tells the cost of how Weft's workflow is built (a local activity, upserts) from the
// cost of what its activities do (the store, the model call), which bench/orchestration-bench.ts
// measures together. Starts its own Temporal dev server and the bare worker (bench/bare-worker.ts),
// then runs, in interleaved slices (BENCH_SECONDS in all per side, default 48, BENCH_CONCURRENCY in
// flight, default 16):
// - the bare baseline: one empty activity;
// - a STANDARD task's shape: one activity (which records the start), then its end as a local
//   activity, with its two status upserts and its first patch check (bench/bare-workflows, taskShapeWorkflow);
// - that one activity alone, with the two status upserts.
// Prints CPU per workflow by part (Temporal, the worker, the bench's process) and each side's ratio
// to the baseline: throughput and CPU.
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import '../test/setup/quiet-logs';
import { startTestServices } from '../test/setup/test-services';
import { startReadyProcess, stop } from '../test/support/processes';
import { taskStatusKey, executionModeKey } from '../workflows/search-attributes';
import { temporalCpu } from './cpu-accounting';
import { interleavedThroughput, loadSide, type LoadSide } from './interleaved-load';
import { printTable } from './stats';

const seconds = Number(process.env.BENCH_SECONDS ?? 48);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
const slices = Number(process.env.BENCH_SLICES ?? 8);

const cpuPerWorkflow = (side: LoadSide, count: number) => [...side.cpuMs.values()].reduce((a, b) => a + b, 0) / count;

async function main(): Promise<void> {
  const services = await startTestServices();
  const taskQueue = `bench-shape-${randomUUID()}`;
  // These workflows make no model call: the worker's model client is given an address it never uses.
  const worker = await startReadyProcess('bench/bare-worker.ts', { WEFT_TASK_QUEUE: taskQueue, WEFT_LLM_BASE_URL: 'http://127.0.0.1:9' });
  const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const temporal = new Client({ connection });
  // Started as the API starts a task: the same search attributes the upserts change.
  const run = (workflowType: string) => () =>
    temporal.workflow.execute(workflowType, {
      taskQueue,
      workflowId: `shape-${randomUUID()}`,
      typedSearchAttributes: [
        { key: taskStatusKey, value: 'RUNNING' },
        { key: executionModeKey, value: 'STANDARD' },
      ],
    });
  const cpuParts = [temporalCpu, { name: 'worker', pids: [worker.pid!] }, { name: 'bench process', pids: [process.pid] }];
  try {
    const sides = [
      loadSide('bare workflow, 1 empty activity', run('oneEmptyActivityWorkflow'), cpuParts),
      loadSide("a STANDARD task's shape: activity, local activity, 2 upserts, a patch", run('taskShapeWorkflow'), cpuParts),
      loadSide('1 activity, 2 upserts', run('oneActivityWorkflow'), cpuParts),
    ];
    for (const side of sides) for (let i = 0; i < 20; i++) await side.runOne();
    const summaries = await interleavedThroughput(sides, { seconds, slices, concurrency });
    console.log('');
    printTable(summaries);
    const [baseline, ...others] = summaries;
    const baselineCpu = cpuPerWorkflow(sides[0]!, baseline!.count);
    for (const [index, summary] of others.entries()) {
      const cpu = cpuPerWorkflow(sides[index + 1]!, summary.count);
      console.log(
        `${summary.name}: throughput ${(summary.opsPerSecond / baseline!.opsPerSecond).toFixed(2)}x the bare workflow's, CPU per workflow ${(cpu / baselineCpu).toFixed(2)}x (${cpu.toFixed(1)} ms against ${baselineCpu.toFixed(1)})`,
      );
    }
  } finally {
    await connection.close();
    await stop(worker);
    await services.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
