// Fairness benchmark: `npx tsx bench/fairness-bench.ts` (BENCH_CALLS, BENCH_SUBMITS_PER_MINUTE,
// BENCH_MAX_RUNNING, BENCH_FLOOD_CONCURRENCY). Starts its own Temporal dev server and database, a
// Weft worker process and the API in this process, with the shipped per-tenant quotas. Measures a
// quiet tenant's SubmitTask latency alone, while another tenant floods at its limit (twice its
// quota's rate, so it is refused half the time and keeps its running tasks at the cap), and while
// it floods as fast as BENCH_FLOOD_CONCURRENCY callers can. The phases are interleaved so the
// machine's changing speed hits each alike. Target: the quiet tenant's p99 with the flood at its
// limit stays within 1.5x its p99 alone.
import { randomUUID } from 'node:crypto';
import { status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import { loadConfig } from '../core/config';
import { unaryCall } from '../protos/clients';
import { startTenantsBenchStack } from './tenants-bench-stack';
import { printTable, summarize, timed } from './stats';

const calls = Number(process.env.BENCH_CALLS ?? 120);
const floodConcurrency = Number(process.env.BENCH_FLOOD_CONCURRENCY ?? 8);
// The shipped per-tenant quotas; the quiet tenant (about 1.6 submits a second) stays inside them.
const defaults = loadConfig({}).tenantQuotas;
const quotas = {
  submitsPerMinute: Number(process.env.BENCH_SUBMITS_PER_MINUTE ?? defaults.submitsPerMinute),
  maxRunningTasks: Number(process.env.BENCH_MAX_RUNNING ?? defaults.maxRunningTasks),
};
const rounds = 3;

async function main(): Promise<void> {
  const stack = await startTenantsBenchStack({ queuePrefix: 'bench-fairness', quotas });
  const quiet = await stack.clientOf(`quiet-${randomUUID()}`);
  const flooder = await stack.clientOf(`flooder-${randomUUID()}`);
  const submit = (client: typeof quiet) => unaryCall(client, 'SubmitTask', { query: `fairness question ${randomUUID()}` });

  const phases = { alone: [] as number[], atLimit: [] as number[], unbounded: [] as number[] };
  const flood = { accepted: 0, refused: 0, failed: [] as string[] };
  const floodOnce = async () => {
    try {
      await submit(flooder);
      flood.accepted += 1;
    } catch (err) {
      if ((err as ServiceError).code === GrpcStatus.RESOURCE_EXHAUSTED) flood.refused += 1;
      else flood.failed.push((err as Error).message);
    }
  };
  /** The quiet tenant's submissions, about 1.6 a second: inside its own quota. */
  const measure = async (into: number[]) => {
    for (let i = 0; i < calls / rounds; i++) {
      await timed(into, () => submit(quiet));
      await new Promise((resolve) => setTimeout(resolve, 600));
    }
  };
  /** Measures while the flooding tenant calls: paced (`perSecond`) or as fast as `concurrency` callers go. */
  const measureWhileFlooding = async (into: number[], flooding: { perSecond?: number; concurrency: number }) => {
    let on = true;
    const loops = Array.from({ length: flooding.concurrency }, async () => {
      while (on) {
        const began = Date.now();
        await floodOnce();
        if (flooding.perSecond)
          await new Promise((resolve) => setTimeout(resolve, Math.max(0, (1000 * flooding.concurrency) / flooding.perSecond! - (Date.now() - began))));
      }
    });
    try {
      await measure(into);
    } finally {
      on = false;
      await Promise.all(loops);
    }
  };
  try {
    for (let i = 0; i < 10; i++) await submit(quiet); // warm up
    const atLimitPerSecond = (2 * quotas.submitsPerMinute) / 60;
    for (let round = 0; round < rounds; round++) {
      await measure(phases.alone);
      await measureWhileFlooding(phases.atLimit, { perSecond: atLimitPerSecond, concurrency: 2 });
      await measureWhileFlooding(phases.unbounded, { concurrency: floodConcurrency });
      if (flood.failed.length > 0) throw new Error(`the flooding tenant's calls failed: ${flood.failed.slice(0, 3).join('; ')}`);
    }
    const rows = [
      summarize('quiet tenant SubmitTask, alone', phases.alone, 0),
      summarize(`quiet tenant SubmitTask, other tenant at its limit (${atLimitPerSecond.toFixed(1)}/s sent)`, phases.atLimit, 0),
      summarize(`quiet tenant SubmitTask, other tenant unbounded (${floodConcurrency} callers)`, phases.unbounded, 0),
    ];
    printTable(rows.map((row) => ({ ...row, opsPerSecond: NaN })));
    console.log(
      `\nflooding tenant: ${flood.accepted} accepted, ${flood.refused} refused (RESOURCE_EXHAUSTED); quotas ${quotas.submitsPerMinute}/min, ${quotas.maxRunningTasks} running`,
    );
    console.log(
      `quiet tenant p99 ratio, other tenant at its limit / alone: ${(rows[1]!.p99 / rows[0]!.p99).toFixed(2)} (target <= 1.5); p50 ratio ${(rows[1]!.p50 / rows[0]!.p50).toFixed(2)}`,
    );
    console.log(
      `quiet tenant p99 ratio, other tenant unbounded / alone: ${(rows[2]!.p99 / rows[0]!.p99).toFixed(2)} (no target: two cores shared with every caller); p50 ratio ${(rows[2]!.p50 / rows[0]!.p50).toFixed(2)}`,
    );
  } finally {
    quiet.close();
    flooder.close();
    await stack.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
