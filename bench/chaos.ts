// Chaos: Weft under crashes, judged from outside and by `weft verify` (bench/README.md, "Chaos").
// `npx tsx bench/chaos.ts` runs the full version (102 tasks, 20 worker SIGKILLs, 2 API SIGKILLs
// under 100 live streams, Postgres and Temporal SIGKILLed); `--short` the version `make test` runs.
// Prints the figures as JSON (also to the file CHAOS_FIGURES_FILE names, apart from any log line);
// exits 1 when a target is missed.
import { writeFileSync } from 'node:fs';
import { runChaos } from './chaos/run-chaos';

const short = process.argv.includes('--short');
// Interrupted, the run still ends its processes (they are killed on exit).
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
const options = short
  ? { tasks: 18, workerKills: 4, apiKills: 1, streams: 20, crashServices: true, spreadMs: 15_000 }
  : { tasks: 102, workerKills: 20, apiKills: 2, streams: 100, crashServices: true, spreadMs: 60_000 };

// A workflow bundle already built (the tests pass theirs); otherwise the run builds one.
const workflowBundle = process.env.CHAOS_WORKFLOW_BUNDLE ? { workflowBundle: process.env.CHAOS_WORKFLOW_BUNDLE } : {};

runChaos({ ...options, ...workflowBundle, log: (line) => console.error(line) }).then(
  (figures) => {
    console.log(JSON.stringify(figures, null, 2));
    if (process.env.CHAOS_FIGURES_FILE) writeFileSync(process.env.CHAOS_FIGURES_FILE, JSON.stringify(figures));
    const everyFaultHitWork =
      figures.faults.worker.modelCallsCutOff > 0 &&
      figures.faults.worker.effectCallsInFlight > 0 &&
      figures.faults.api.eventsWrittenWhileDown > 0 &&
      figures.faults.postgres.modelCallsInFlight > 0 &&
      figures.faults.temporal.modelCallsInFlight > 0;
    const clean =
      figures.outside.completedWithExpectedAnswer === figures.tasks.submitted &&
      figures.outside.modelCalls.beyondAttempts.length === 0 &&
      figures.outside.retriedActivities > 0 &&
      figures.sideEffects.tasks > 0 &&
      figures.sideEffects.bookingsNotOnce.length + figures.sideEffects.paymentsNotOnce.length === 0 &&
      everyFaultHitWork &&
      figures.unexpectedExits.api + figures.unexpectedExits.workers === 0 &&
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
