// Eval benchmark: `npx tsx bench/eval-bench.ts` (BENCH_TASKS, default 50; BENCH_CONCURRENCY, default
// 8, weft eval's default). Starts its own Temporal dev server and database, a Weft worker process
// and the API in this process, on the scripted model with no pacing. Two kinds of STANDARD task:
// two model steps with a Python program between them (the sandbox's real cost; as many sandboxes
// and programs per tenant as tasks at once), and one model step alone (what an eval adds: reading
// the recorded input, scoring, comparing steps). Per round: the tasks run fresh through the API
// (they become the record), then `weft eval` runs them again on the same model server, as many at
// once; its Python calls are answered from the record. Two rounds of each kind, each ratio from
// its own round. Target: the eval takes <= 1.5x the fresh run.
import { randomUUID } from 'node:crypto';
import { createRuntimeStore } from '../core/store';
import { recordOnlyPolicy } from '../core/tasks/run/eval-tools';
import { findTask } from '../core/tasks/task-index';
import { unaryCall } from '../protos/clients';
import { runEval } from '../cli/eval/run-eval';
import { startTenantsBenchStack } from './tenants-bench-stack';

const tasks = Number(process.env.BENCH_TASKS ?? 50);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 8);
const rounds = 2;
const kinds = [
  { name: 'with a Python program', marker: 'eval bench python', programs: tasks },
  { name: 'one model step', marker: 'eval bench answer', programs: 0 },
];

type Messages = Array<{ role: string }>;

/** Runs `work` over `items`, `concurrency` at a time; the seconds it took. */
async function timedLanes<T>(items: T[], work: (item: T) => Promise<void>): Promise<number> {
  const started = performance.now();
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < items.length; i = next++) await work(items[i]!);
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return (performance.now() - started) / 1000;
}

async function main(): Promise<void> {
  const stack = await startTenantsBenchStack({
    queuePrefix: 'bench-eval',
    quotas: { submitsPerMinute: 100_000, maxRunningTasks: 1_000 },
    workerEnv: { WEFT_SANDBOX_POOL_SIZE: String(concurrency), WEFT_TENANT_SANDBOX_PROGRAMS: String(concurrency) },
  });
  const store = createRuntimeStore(stack.pool);
  const [python, answer] = kinds;
  // A Python program that depends on the task; given its output, the answer.
  stack.model.on(
    (text, body) => text.includes(python!.marker) && (body.messages as Messages).at(-1)?.role === 'tool',
    (text) => ({
      content: `Computed for ${text}`,
    }),
  );
  stack.model.on(
    (text) => text.includes(python!.marker),
    (text) => ({ toolCalls: [{ id: 'py-1', name: 'python_executor', arguments: JSON.stringify({ code: `print(sum(range(${text.length * 1000})))` }) }] }),
  );
  stack.model.on(
    (text) => text.includes(answer!.marker),
    (text) => ({ content: `Answered ${text}` }),
  );
  const client = await stack.clientOf(`eval-bench-${randomUUID()}`);

  const rows: string[] = [];
  for (let round = 1; round <= rounds; round++) {
    for (const kind of kinds) {
      const ids: string[] = [];
      const fresh = await timedLanes(
        Array.from({ length: tasks }, (_, i) => `${kind.marker} ${round}-${i} ${randomUUID()}.`),
        async (query) => {
          const { task_id } = await unaryCall(client, 'SubmitTask', { query });
          await stack.temporal.workflow.getHandle(task_id).result();
          ids.push(task_id);
        },
      );
      const programs = await stack.pool.query<{ n: string }>(
        `SELECT count(*) AS n FROM task_events WHERE workflow_id = ANY($1) AND event_type = 'TOOL_OBSERVATION' AND (payload->>'ok')::boolean`,
        [ids],
      );
      if (Number(programs.rows[0]!.n) !== kind.programs) throw new Error(`${programs.rows[0]!.n} of ${kind.programs} Python programs ran in the fresh tasks`);
      const recorded = await Promise.all(ids.map((taskId) => findTask(stack.pool, taskId)));
      const started = performance.now();
      const report = await runEval(
        { pool: stack.pool, store, temporal: stack.temporal, taskQueue: stack.taskQueue },
        {
          evalId: `bench-${round}-${randomUUID().slice(0, 8)}`,
          candidate: {},
          tools: recordOnlyPolicy,
          scorer: { kind: 'normalised' },
          concurrency,
        },
        recorded.map((task) => ({ name: task!.taskId, recorded: task! })),
      );
      const evalSeconds = (performance.now() - started) / 1000;
      const reused = await stack.pool.query<{ n: string }>(
        `SELECT count(*) AS n FROM task_events WHERE workflow_id = ANY($1) AND event_type = 'TOOL_OBSERVATION' AND payload ? 'reused_from'`,
        [report.cases.map((c) => c.candidateTaskId)],
      );
      if (Number(reused.rows[0]!.n) !== kind.programs)
        throw new Error(`${reused.rows[0]!.n} of ${kind.programs} programs in the eval were answered from the record`);
      const same = report.cases.filter((c) => c.diverged.length === 0).length;
      rows.push(
        `round ${round}, ${kind.name}: fresh ${fresh.toFixed(1)} s (${((fresh * 1000) / tasks).toFixed(0)} ms/task), eval ${evalSeconds.toFixed(1)} s ` +
          `(${((evalSeconds * 1000) / tasks).toFixed(0)} ms/task) = ${(evalSeconds / fresh).toFixed(2)}x; mean score ${report.totals.score.toFixed(2)}, ` +
          `${report.totals.failed} not completed, ${same}/${tasks} took the recorded path`,
      );
      console.log(rows.at(-1));
    }
  }
  console.log(`eval of ${tasks} recorded tasks beside running them fresh, ${concurrency} at a time (this machine, this run; target <= 1.5x):`);
  for (const row of rows) console.log(`  ${row}`);
  await stack.stop();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
