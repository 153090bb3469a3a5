import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';

const repoRoot = path.resolve(__dirname, '../..');
const weftArgs = (args: string[]) => ['--import', 'tsx', 'cli/weft.ts', ...args];

export interface WeftRun {
  code: number | null;
  stdout: string;
  stderr: string;
  output: string;
}

/** Runs the `weft` CLI as a user would (its own process, this environment); its exit code and output. For commands that need no server in this process. */
export function runWeft(...args: string[]): WeftRun {
  const run = spawnSync(process.execPath, weftArgs(args), { cwd: repoRoot, encoding: 'utf8', env: process.env });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr, output: run.stdout + run.stderr };
}

/** A `weft` process that talks to an API in this process: it runs while the test awaits. */
export function startWeft(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, weftArgs(args), { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const run: WeftRun = { code: null, stdout: '', stderr: '', output: '' };
  child.stdout.on('data', (chunk: Buffer) => {
    run.stdout += chunk.toString();
    run.output += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    run.stderr += chunk.toString();
    run.output += chunk.toString();
  });
  const exited = new Promise<WeftRun>((resolve) => child.once('close', (code) => resolve({ ...run, code })));
  return { child, run, exited };
}

/** Runs `weft` to its end against an API in this process. */
export const weft = (args: string[], env: Record<string, string> = {}) => startWeft(args, env).exited;

/**
 * `weft` on a pseudo-terminal (util-linux `script`), as a person at a terminal runs it: colours and
 * all. Its output, with the terminal's colour codes and carriage returns taken out.
 */
export function startWeftOnTerminal(args: string[], env: Record<string, string> = {}) {
  const command = [process.execPath, ...weftArgs(args)].map((part) => `'${part.replace(/'/g, `'\\''`)}'`).join(' ');
  const child = spawn('script', ['-qfec', command, '/dev/null'], { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let raw = '';
  child.stdout.on('data', (chunk: Buffer) => (raw += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (raw += chunk.toString()));
  // eslint-disable-next-line no-control-regex
  const plain = () => raw.replace(/\x1b\[[0-9;]*m/g, '').replace(/\r/g, '');
  const exited = new Promise<{ code: number | null; output: string; raw: string }>((resolve) =>
    child.once('close', (code) => resolve({ code, output: plain(), raw })),
  );
  return { child, output: plain, raw: () => raw, exited };
}
