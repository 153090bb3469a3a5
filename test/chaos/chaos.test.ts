import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ChaosFigures } from '../../bench/chaos/figures';

// The short chaos run (`npx tsx bench/chaos.ts --short`, run here as a user would): eighteen mixed
// tasks (three book and pay at a peer with side effects) while workers are SIGKILLed mid-work, the
// API is SIGKILLed under live streams of tasks that go on writing, and Postgres (fsync on) and
// Temporal are SIGKILLed mid-work. Judged from outside: every task COMPLETED with the answer its
// script implies, each booking and each payment took effect at the peer exactly once, the model
// never asked more often than Temporal has attempts for, every stream delivers its task's log
// exactly across the crash, and each kind of fault hit work in flight; and `weft verify` finds nothing.

function runShortChaos(): Promise<{ code: number | null; figures?: ChaosFigures; stderr: string }> {
  // The figures come in a file of their own: the run's stdout also carries its processes' log lines.
  const figuresFile = path.join(mkdtempSync(path.join(tmpdir(), 'weft-chaos-figures-')), 'figures.json');
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/chaos.ts', '--short'], {
    cwd: path.resolve(__dirname, '../..'),
    env: { ...process.env, CHAOS_WORKFLOW_BUNDLE: process.env.WEFT_TEST_WORKFLOW_BUNDLE!, CHAOS_FIGURES_FILE: figuresFile },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // A run that hangs is ended (it stops what it started) before the test's own timeout.
  const hung = setTimeout(() => child.kill('SIGTERM'), 480_000);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(hung);
      const figures = existsSync(figuresFile) ? (JSON.parse(readFileSync(figuresFile, 'utf8')) as ChaosFigures) : undefined;
      resolve({ code, ...(figures ? { figures } : {}), stderr });
    }),
  );
}

it('every task completes with its answer, every stream resumes without a gap or a duplicate, and every crash hit work', async () => {
  const { code, figures, stderr } = await runShortChaos();
  // A run that could not finish says why on its stderr.
  if (!figures) throw new Error(`the chaos run printed no figures (exit ${code}):\n${stderr.slice(-4000)}`);
  expect(figures.outside.wrongAnswers).toEqual([]);
  expect(figures.outside.completedWithExpectedAnswer).toBe(18);
  expect(figures.sideEffects).toMatchObject({ tasks: 3, bookingsNotOnce: [], paymentsNotOnce: [] });
  expect(figures.outside.modelCalls.beyondAttempts).toEqual([]);
  expect(figures.outside.retriedActivities).toBeGreaterThan(0);
  expect(figures.faults.worker.modelCallsCutOff).toBeGreaterThan(0);
  expect(figures.faults.worker.effectCallsInFlight).toBeGreaterThan(0);
  expect(figures.faults.api.eventsWrittenWhileDown).toBeGreaterThan(0);
  expect(figures.faults.postgres.modelCallsInFlight).toBeGreaterThan(0);
  expect(figures.faults.temporal.modelCallsInFlight).toBeGreaterThan(0);
  expect(figures.unexpectedExits).toEqual({ api: 0, workers: 0 });
  expect(figures.tasks).toMatchObject({ submitted: 18, terminal: 18, verifiedClean: 18 });
  expect(figures.disagreements.lines).toEqual([]);
  expect(figures.streams).toMatchObject({ followed: 20, endedAtFinalEvent: 20, resumed: 20, resumedWithoutGapOrDuplicate: 20, withGapOrDuplicate: 0 });
  expect([code, stderr.trim().split('\n').at(-1)]).toEqual([0, 'chaos: every target met']);
}, 600_000);
