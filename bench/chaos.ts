// Chaos: Weft under faults, checked by `weft verify` (README "Chaos"). `npx tsx bench/chaos.ts`
// runs the full version (100 tasks, 20 worker SIGKILLs, API restarts under 100 live streams, a
// Postgres and Temporal restart); `--short` the version `make test` runs. Prints the figures as JSON.
import { runChaos } from './chaos/run-chaos';

const short = process.argv.includes('--short');
// Interrupted, the run still ends its processes (they are killed on exit).
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
const options = short
  ? { tasks: 12, workerKills: 3, apiRestarts: 1, streams: 20, restartServices: true, spreadMs: 12_000 }
  : { tasks: 100, workerKills: 20, apiRestarts: 2, streams: 100, restartServices: true, spreadMs: 60_000 };

// A workflow bundle already built (the tests pass theirs); otherwise the run builds one.
const workflowBundle = process.env.CHAOS_WORKFLOW_BUNDLE ? { workflowBundle: process.env.CHAOS_WORKFLOW_BUNDLE } : {};

runChaos({ ...options, ...workflowBundle, log: (line) => console.error(line) }).then(
  (figures) => {
    console.log(JSON.stringify(figures, null, 2));
    const clean =
      figures.tasks.terminal === figures.tasks.submitted &&
      figures.tasks.verifiedClean === figures.tasks.submitted &&
      figures.streams.withGapOrDuplicate === 0 &&
      figures.streams.endedAtFinalEvent === figures.streams.followed;
    console.error(clean ? 'chaos: every target met' : 'chaos: targets missed (see the figures)');
    process.exit(clean ? 0 : 1);
  },
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
