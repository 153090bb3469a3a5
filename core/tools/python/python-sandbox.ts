import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { ToolError } from '../tool';

// Python without a way out. Each program runs in its own process (sandbox-runner.cjs): CPython as
// WebAssembly (pyodide, offline, with its standard library) under Node's permission model (it may
// read only the interpreter's files: no writes, no child processes, no workers, no native addons),
// in a new network namespace with no interfaces but a down loopback (`unshare -rn`), with an empty
// environment (no secrets), a memory cap (its resident memory is watched and the process killed
// past it) and a wall-clock timeout. An interpreter inside the worker would not be a sandbox:
// Python reaches the host's JavaScript objects through the FFI; here it reaches only its own
// powerless process. A warm process (interpreter loaded, waiting for its one program) is kept ready.

export interface SandboxResult {
  stdout: string;
  stderr: string;
  /** Output beyond the cap was dropped. */
  truncated: boolean;
  /** The Python exception, with its traceback, when the program raised one. */
  error?: string;
}

export interface SandboxLimits {
  timeoutMs: number;
  memoryMb: number;
  signal?: AbortSignal;
}

export interface PythonSandbox {
  run(code: string, limits: SandboxLimits): Promise<SandboxResult>;
  /** Makes sure a process with this memory cap is loaded and waiting, so the next program starts warm. */
  prewarm(memoryMb: number): Promise<void>;
  /** Stops the warm process. */
  close(): void;
}

export interface SandboxOptions {
  /** Bytes of stdout and of stderr kept. */
  outputLimitBytes: number;
  /** How often the sandbox's resident memory is checked. */
  memoryCheckMs?: number;
}

const runner = path.join(__dirname, 'sandbox-runner.cjs');
const pyodideDir = path.dirname(require.resolve('pyodide/package.json'));
/** A cold interpreter loads in 2-3 s; one that has not in this long never will. */
const startupTimeoutMs = 30_000;
const permissionFlag = Number(process.versions.node.split('.')[0]) >= 22 ? '--permission' : '--experimental-permission';

/** Why network isolation cannot be had here, or undefined when `unshare -rn` works. */
function networkIsolationProblem(): string | undefined {
  const probe = spawnSync('unshare', ['-rn', 'true'], { encoding: 'utf8', timeout: 5_000 });
  if (probe.error) return probe.error.message;
  return probe.status === 0 ? undefined : probe.stderr.trim() || `exit code ${probe.status}`;
}

function residentMb(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0; // already gone
  }
}

interface Sandboxed {
  child: ChildProcess;
  /** The runner's messages, one JSON object per line. */
  messages: AsyncIterator<string>;
  ready: Promise<void>;
}

function start(memoryMb: number, outputLimitBytes: number): Sandboxed {
  const child = spawn(
    'unshare',
    [
      '-rn',
      process.execPath,
      permissionFlag,
      `--allow-fs-read=${pyodideDir}${path.sep}*`,
      `--allow-fs-read=${runner}`,
      '--no-warnings',
      `--max-old-space-size=${Math.max(64, Math.floor(memoryMb / 2))}`,
      runner,
      path.join(pyodideDir, 'pyodide.js'),
      String(outputLimitBytes),
    ],
    { env: {}, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  // A waiting sandbox must not keep its host alive; a host that exits closes its stdin, and it ends.
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

export function createPythonSandbox(options: SandboxOptions): PythonSandbox {
  const memoryCheckMs = options.memoryCheckMs ?? 25;
  let isolationChecked: string | undefined | null = null;
  let warm: { memoryMb: number; sandbox: Sandboxed } | undefined;

  const warmFor = (memoryMb: number): Sandboxed => {
    if (warm?.memoryMb !== memoryMb) {
      warm?.sandbox.child.kill('SIGKILL');
      const sandbox = start(memoryMb, options.outputLimitBytes);
      sandbox.ready.catch(() => {});
      warm = { memoryMb, sandbox };
    }
    return warm.sandbox;
  };

  const take = (memoryMb: number): Sandboxed => {
    const sandbox = warmFor(memoryMb);
    warm = undefined;
    // The next program finds a process with its interpreter already loaded.
    warmFor(memoryMb);
    return sandbox;
  };

  return {
    async run(code, limits) {
      if (isolationChecked === null) isolationChecked = networkIsolationProblem();
      if (isolationChecked !== undefined) {
        throw new ToolError('execution', `the Python sandbox needs a network namespace and cannot have one here (unshare -rn: ${isolationChecked})`);
      }
      const sandbox = take(limits.memoryMb);
      const { child } = sandbox;
      let stopped: string | undefined;
      const stop = (why: string) => {
        stopped ??= why;
        child.kill('SIGKILL');
      };
      let timer: NodeJS.Timeout | undefined;
      const watch = setInterval(() => {
        if (child.pid && residentMb(child.pid) > limits.memoryMb) stop(`exceeded its memory limit of ${limits.memoryMb} MB`);
      }, memoryCheckMs);
      const onAbort = () => stop('was cancelled');
      limits.signal?.addEventListener('abort', onAbort);
      try {
        await sandbox.ready;
        // The program's time starts when it is handed over, not while a cold interpreter loads.
        timer = setTimeout(() => stop(`timed out after ${limits.timeoutMs} ms`), limits.timeoutMs);
        child.stdin!.end(`${JSON.stringify({ code })}\n`);
        const answer = await sandbox.messages.next();
        if (stopped || answer.done) {
          if (limits.signal?.aborted) throw limits.signal.reason;
          throw new ToolError('execution', `the Python program ${stopped ?? 'ended its sandbox unexpectedly'}`);
        }
        return JSON.parse(answer.value) as SandboxResult;
      } finally {
        clearTimeout(timer);
        clearInterval(watch);
        limits.signal?.removeEventListener('abort', onAbort);
        child.kill('SIGKILL');
      }
    },
    async prewarm(memoryMb) {
      // A waiting process does not keep its host alive, but one the host waits for must.
      const { child, ready } = warmFor(memoryMb);
      child.ref();
      try {
        await ready;
      } finally {
        child.unref();
      }
    },
    close() {
      warm?.sandbox.child.kill('SIGKILL');
      warm = undefined;
    },
  };
}
