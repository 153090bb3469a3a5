import { spawn, type ChildProcess } from 'node:child_process';
import { repoRoot } from './temporal-dev-server';


export interface ManagedProcess {
  name: string;
  child: ChildProcess;
  exited: Promise<number | null>;
}

/** Node flags the worker runs with: a small young generation keeps its memory low under load. */
export const workerNodeFlags = ['--max-semi-space-size=1', '--optimize-for-size'];

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
