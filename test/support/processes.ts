import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const repoRoot = path.resolve(__dirname, '../..');

/**
 * Starts a TypeScript entry point as its own process and waits until it prints that it is ready.
 * Its stderr goes to ours, or to the file descriptor given; what it printed on stdout stays readable.
 */
export async function startReadyProcess(
  entry: string,
  env: Record<string, string | undefined>,
  readyText = 'worker process ready',
  nodeFlags: string[] = [],
  stderr: 'inherit' | number = 'inherit',
): Promise<ChildProcess & { stdoutText(): string }> {
  const child = spawn(process.execPath, [...nodeFlags, '--import', 'tsx', entry], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', stderr],
  });
  let stdout = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes(readyText)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`${entry} exited with ${code} before it was ready`)));
  });
  return Object.assign(child, { stdoutText: () => stdout });
}

/** Resident memory of a process, in MB. */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return kb / 1024;
}

/** Sends the signal (SIGTERM: the graceful end) unless the process has already ended, and waits for its end. */
export async function stop(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}
