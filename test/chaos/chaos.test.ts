import { spawn } from 'node:child_process';
import path from 'node:path';
import type { ChaosFigures } from '../../bench/chaos/figures';

// The short chaos run (`npx tsx bench/chaos.ts --short`, run here as a user would): a dozen mixed
// tasks while workers are SIGKILLed, the API is SIGKILLed under live streams, and Postgres and
// Temporal restart. Whatever happened, every task ends in a state `weft verify` accepts, and every
// stream delivers its task's log exactly, resuming across the restart with its last event id.

function runShortChaos(): Promise<{ code: number | null; figures?: ChaosFigures; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/chaos.ts', '--short'], {
    cwd: path.resolve(__dirname, '../..'),
    env: { ...process.env, CHAOS_WORKFLOW_BUNDLE: process.env.WEFT_TEST_WORKFLOW_BUNDLE! },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // A run that hangs is ended (it stops what it started) before the test's own timeout.
  const hung = setTimeout(() => child.kill('SIGTERM'), 480_000);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(hung);
      const figures = stdout.trim().startsWith('{') ? (JSON.parse(stdout) as ChaosFigures) : undefined;
      resolve({ code, ...(figures ? { figures } : {}), stderr });
    }),
  );
}

it('every task ends verified clean and every stream resumes without a gap or a duplicate, through kills and restarts', async () => {
  const { code, figures, stderr } = await runShortChaos();
  // A run that could not finish says why on its stderr.
  if (!figures) throw new Error(`the chaos run printed no figures (exit ${code}):\n${stderr.slice(-4000)}`);
  // Twelve tasks, and the probe that shows work resumed after the restart.
  expect(figures.tasks).toMatchObject({ submitted: 13, terminal: 13, verifiedClean: 13 });
  expect(figures.disagreements.lines).toEqual([]);
  expect(figures.streams).toMatchObject({ followed: 20, endedAtFinalEvent: 20, resumed: 20, resumedWithoutGapOrDuplicate: 20, withGapOrDuplicate: 0 });
  expect([code, stderr.trim().split('\n').at(-1)]).toEqual([0, 'chaos: every target met']);
}, 600_000);
