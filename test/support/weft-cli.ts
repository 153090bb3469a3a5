import { spawnSync } from 'node:child_process';
import path from 'node:path';

const repoRoot = path.resolve(__dirname, '../..');

/** Runs the `weft` CLI as a user would (its own process, this environment); its exit code and output. */
export function runWeft(...args: string[]): { code: number | null; stdout: string; stderr: string; output: string } {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'cli/weft.ts', ...args], { cwd: repoRoot, encoding: 'utf8', env: process.env });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr, output: run.stdout + run.stderr };
}
