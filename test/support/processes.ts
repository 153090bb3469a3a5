import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeSync } from 'node:fs';
import path from 'node:path';

const repoRoot = path.resolve(__dirname, '../..');

/**
 * Starts a TypeScript entry point as its own process and waits until it prints that it is ready.
 * Its stderr goes to ours, or (stdout too) to the log file descriptor given; what it printed on
 * stdout stays readable. If it exits before it is ready, the error carries its last lines (a
 * Weft process says why it stopped on stdout, as a JSON log line).
 */
export async function startReadyProcess(
  entry: string,
  env: Record<string, string | undefined>,
  readyText = 'worker process ready',
  nodeFlags: string[] = [],
  logFd?: number,
): Promise<ChildProcess & { stdoutText(): string }> {
  const child = spawn(process.execPath, [...nodeFlags, '--import', 'tsx', entry], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', logFd ?? 'inherit'],
  });
  let stdout = '';
  let ready = false;
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (logFd !== undefined) writeSync(logFd, chunk);
      // Searched until found only: a bench's worker writes a line per task for as long as it runs.
      if (!ready && stdout.includes(readyText)) {
        ready = true;
        resolve();
      }
    });
    // 'close', not 'exit': by then all it wrote has been read.
    child.once('close', (code, signal) => {
      const said = lastLines(stdout, 5);
      reject(new Error(`${entry} exited with ${code ?? signal} before it was ready${said ? `; its last lines:\n${said}` : ''}`));
    });
  });
  return Object.assign(child, { stdoutText: () => stdout });
}

/** The last `count` lines of a process's output. */
export const lastLines = (text: string, count: number) => text.trimEnd().split('\n').slice(-count).join('\n');

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
