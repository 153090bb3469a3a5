// Long agent loop benchmark (issue 19): `npx tsx bench/long-loop-bench.ts` (BENCH_STEPS, default 500).
// One STANDARD task whose agent takes BENCH_STEPS model steps, a calculator call after each, with
// continue-as-new every WEFT_STEPS_PER_HISTORY (50) steps, against its own Temporal dev server and
// database; the model is the scripted server and answers at once, so a model step's activity time
// is Weft's own per-step overhead (transcript rebuild, store reads and writes, events), with and
// without the model server's own time to answer. Prints both around steps 10, 100 and the last,
// as ratios to step 10's in the same run, and the history sizes, continue-as-new count and store
// rows per step.
import { randomUUID } from 'node:crypto';
import type { temporal } from '@temporalio/proto';
import '../test/setup/quiet-logs';
import { startTestServices } from '../test/setup/test-services';
import { startTestStack } from '../test/support/stack';
import { submitTask, waitForFinish } from '../test/support/grpc';
import { jsonToStruct } from '../api/grpc/struct';
import { runsOf } from '../cli/history-checks';
import { activityTimes, eventMillis } from './activity-times';

const steps = Number(process.env.BENCH_STEPS ?? 500);
// Steps on each side of a point whose median is its figure (single steps vary with the machine).
const window = 10;

/** Each runModelStep's scheduled-to-completed time, in step order, from the histories of every run. */
const modelStepTimes = (histories: temporal.api.history.v1.IHistoryEvent[][]) => histories.flatMap((events) => activityTimes(events, 'runModelStep'));

const around = (times: number[], step: number) => {
  const slice = times.slice(Math.max(0, step - window), step + window).sort((a, b) => a - b);
  return slice[Math.floor(slice.length / 2)]!;
};

async function main(): Promise<void> {
  const services = await startTestServices();
  const stack = await startTestStack({ settings: { maxIterations: steps + 1 } });
  try {
    const query = `long loop ${randomUUID()}`;
    const replies = Array.from({ length: steps - 1 }, (_, i) => ({ toolCalls: [{ id: `c${i}`, name: 'calculator', arguments: `{"expression":"${i}+1"}` }] }));
    stack.model.on(query, ...replies, { content: 'done' });
    const started = Date.now();
    const submitted = await submitTask(stack.orchestrator, { query, context: jsonToStruct({ max_iterations: steps + 1 }) });
    const status = await waitForFinish(stack.orchestrator, submitted.task_id, 30 * 60_000);
    const wallSeconds = (Date.now() - started) / 1000;

    const histories = await runsOf(stack.temporal, submitted.workflow_id);
    histories.sort((a, b) => eventMillis(a[0]!) - eventMillis(b[0]!));
    const times = modelStepTimes(histories);
    const { rows } = await stack.pool.query<{ n: string }>('SELECT count(*) AS n FROM runtime_run_records WHERE run_id = $1', [submitted.workflow_id]);
    const at10 = around(times, 10);
    console.log(`task ${status.status} after ${times.length} model steps in ${wallSeconds.toFixed(1)} s; ${histories.length - 1} continue-as-new`);
    console.log(`history events per run: ${histories.map((h) => h.length).join(', ')}`);
    console.log(`store rows (run records) per step: ${(Number(rows[0]!.n) / times.length).toFixed(2)}`);
    // The scripted server's own time (reading, matching and answering a growing request) is the
    // test double's, not Weft's: taken out of each step, what is left is Weft's per-step overhead.
    const answered = stack.model.requests.filter((r) => r.path === '/v1/chat/completions' && JSON.stringify(r.body.messages).includes(query));
    if (answered.length !== times.length) throw new Error(`${answered.length} model requests for ${times.length} model steps`);
    const overheads = times.map((ms, i) => ms - (answered[i]!.answeredAt! - answered[i]!.arrivedAt));
    const overheadAt10 = around(overheads, 10);
    for (const step of [10, 100, times.length - window].filter((step) => step <= times.length - window)) {
      console.log(
        `around step ${step} (medians): model step activity ${around(times, step).toFixed(1)} ms (${(around(times, step) / at10).toFixed(2)}x step 10's), ` +
          `outside the model server's answer ${around(overheads, step).toFixed(1)} ms (${(around(overheads, step) / overheadAt10).toFixed(2)}x step 10's)`,
      );
    }
  } finally {
    await stack.stop();
    await services.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
