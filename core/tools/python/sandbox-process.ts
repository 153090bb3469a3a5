import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { ToolError } from '../tool';
import { inside, sandboxArguments } from './bubblewrap';

// One interpreter process in its container: started, loading pyodide, then waiting for the one
// program it will ever run.

export interface SandboxProcess {
  child: ChildProcess;
  /** The runner's messages, one JSON object per line. */
  messages: AsyncIterator<string>;
  /** Resolves once the interpreter is loaded and waiting. */
  ready: Promise<void>;
}

/** A cold interpreter loads in 2-3 s; one that has not in this long never will. */
const startupTimeoutMs = 30_000;
const permissionFlag = Number(process.versions.node.split('.')[0]) >= 22 ? '--permission' : '--experimental-permission';

/**
 * The runner in its container: `start` is 'snapshot' (make one, see snapshot.ts), the host path of
 * a snapshot to start from, or undefined for a load from scratch.
 */
export function spawnRunner(memoryMb: number, outputLimitBytes: number, start?: string): ChildProcess {
  const snapshot = start && start !== 'snapshot' ? start : undefined;
  // Inside the container Node's permission model still applies: reads of the interpreter only, no
  // writes, no child processes, no workers, no native addons.
  const node = [
    inside.node,
    permissionFlag,
    `--allow-fs-read=${inside.pyodide}${path.posix.sep}*`,
    `--allow-fs-read=${inside.runner}`,
    ...(snapshot ? [`--allow-fs-read=${inside.snapshot}`] : []),
    '--no-warnings',
    `--max-old-space-size=${Math.max(64, Math.floor(memoryMb / 2))}`,
    inside.runner,
    path.posix.join(inside.pyodide, 'pyodide.js'),
    String(outputLimitBytes),
    ...(start ? [snapshot ? inside.snapshot : start] : []),
  ];
  // Only stdin, stdout and stderr are inherited; the environment is empty.
  return spawn('bwrap', [...sandboxArguments(snapshot ? [[snapshot, inside.snapshot]] : []), ...node], { env: {}, stdio: ['pipe', 'pipe', 'pipe'] });
}

/** An interpreter, from the snapshot when there is one, that loads and then waits for its program. */
export function startSandboxProcess(memoryMb: number, outputLimitBytes: number, snapshot?: string): SandboxProcess {
  const child = spawnRunner(memoryMb, outputLimitBytes, snapshot);
  // A waiting sandbox must not keep its host alive; a host that exits takes it along (--die-with-parent).
  child.unref();
  for (const stream of [child.stdin, child.stdout, child.stderr]) (stream as unknown as { unref?: () => void }).unref?.();
  const stderr: string[] = [];
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => stderr.push(chunk));
  const messages = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const startup = setTimeout(() => child.kill('SIGKILL'), startupTimeoutMs);
  startup.unref();
  const ready = messages.next().then((first) => {
    clearTimeout(startup);
    const message = first.done ? undefined : (JSON.parse(first.value) as { ready?: boolean; failed?: string });
    if (!message?.ready) throw new ToolError('execution', `the Python sandbox failed to start: ${message?.failed ?? stderr.join('').slice(-500)}`);
  });
  ready.catch(() => child.kill('SIGKILL'));
  child.stdin!.on('error', () => {}); // a sandbox that died is reported by its result, not by the pipe
  return { child, messages, ready };
}
