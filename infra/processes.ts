import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './temporal-dev-server';

export interface ManagedProcess {
  name: string;
  child: ChildProcess;
  exited: Promise<number | null>;
}

/**
 * Node flags the worker runs with, kept in infra/worker-node-flags so that the container's entrypoint
 * runs it with the same ones: a 4 MB young generation, and an old generation that grows by 10 % at
 * a time (V8's default growth would let 1,000 tasks in flight take ~500 MB). The worker spends about
 * a tenth less CPU per task than with the 1 MB young generation and --optimize-for-size it ran with
 * before, within the same memory lines: 100 tasks in flight under 300 MB, 1,000 under 400 MB
 * (bench/orchestration-bench.ts, bench/in-flight-bench.ts; the figures are on issue 19).
 */
export const workerNodeFlags = readFileSync(path.join(repoRoot, 'infra', 'worker-node-flags'), 'utf8')
  .trim()
  .split(/\s+/);

/**
 * Environment the worker runs with, kept in infra/worker-env (KEY=value lines) for the container's
 * entrypoint too: glibc's malloc keeps at most two arenas instead of one for each thread that
 * allocates (the SDK's core runs its own threads beside Node's). Worker RSS with 100 tasks in flight
 * 274-321 MB with it, 309-357 MB without; with 1,000, 321 MB peak and 362 MB finishing against 360
 * and 390 (bench/orchestration-bench.ts, bench/in-flight-bench.ts; the figures are on issue 19).
 */
export const workerEnv: Record<string, string> = Object.fromEntries(
  readFileSync(path.join(repoRoot, 'infra', 'worker-env'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
);

/**
 * Node flags the API runs with: Node's defaults. A 64 MB young generation (tried for SubmitTask's
 * p99, which it did not change beyond the machine's noise) made each scavenge long once thousands
 * of streams were open: bench/api-bench.ts with 10,000 streams, delivery p99 115-130 ms with it,
 * 58-71 ms without.
 */
export const apiNodeFlags: string[] = [];

/** Runs a TypeScript entry point as a child process, its output prefixed with its name. */
export function startProcess(name: string, entry: string, env: NodeJS.ProcessEnv, nodeFlags: string[] = []): ManagedProcess {
  const child = spawn(process.execPath, [...nodeFlags, '--import', 'tsx', entry], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const prefix = (stream: NodeJS.ReadableStream, out: NodeJS.WritableStream) => {
    let buffered = '';
    stream.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) out.write(`[${name}] ${line}\n`);
    });
  };
  prefix(child.stdout!, process.stdout);
  prefix(child.stderr!, process.stderr);
  return { name, child, exited: new Promise((resolve) => child.once('exit', resolve)) };
}

/** SIGTERM, then SIGKILL if the process has not exited after `graceMs`. */
export async function stopProcess(proc: ManagedProcess, graceMs = 35_000): Promise<void> {
  if (proc.child.exitCode !== null || proc.child.signalCode !== null) return;
  proc.child.kill('SIGTERM');
  const timer = setTimeout(() => proc.child.kill('SIGKILL'), graceMs);
  await proc.exited;
  clearTimeout(timer);
}
