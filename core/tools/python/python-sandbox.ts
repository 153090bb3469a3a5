import { ToolError } from '../tool';
import { sandboxProblem } from './bubblewrap';
import { startSandboxProcess, type Ended, type SandboxProcess } from './sandbox-process';
import { createWarmPool } from './warm-pool';

// Python without a way out. Each program runs in a sandbox of its own: a fresh native CPython
// (Debian's) in a bubblewrap container (bubblewrap.ts: its own user, pid, mount, ipc, uts and
// network namespaces, an unprivileged uid, a read-only root holding only the interpreter), under a
// strict seccomp filter it loads before the program (sandbox_seccomp.py), with hard rlimits on
// memory, CPU time, file size and open files applied when the program is handed over, and a
// wall-clock timeout. The kernel is the boundary; see docs/guides/python-sandbox.md.
//
// Why a fresh interpreter per program and not forks of one warm interpreter (a zygote): a fork
// inherits its parent's hash secret, fixed when the interpreter starts, so every program would
// hash strings alike (and a fork that re-executes the interpreter is the same fresh start with
// extra steps). A fresh start costs tens of milliseconds, paid ahead in the pool (warm-pool.ts):
// a program that finds a waiting sandbox pays only for its hand-over.

export interface SandboxResult {
  stdout: string;
  stderr: string;
  /** Output beyond the cap was dropped. */
  truncated: boolean;
  /** The Python exception, with its traceback, when the program raised one. */
  error?: string;
}

/** A file the program may read, under /data; its own writes stay in the sandbox. */
export interface DataFile {
  /** Relative to /data. */
  path: string;
  content: Buffer;
}

export interface SandboxLimits {
  timeoutMs: number;
  memoryMb: number;
  signal?: AbortSignal;
  files?: DataFile[];
}

export interface PythonSandbox {
  run(code: string, limits: SandboxLimits): Promise<SandboxResult>;
  /** Makes sure the pool's sandboxes are started and waiting. */
  prewarm(): Promise<void>;
  /** The host pids of the sandboxes waiting now, and the pool's size. */
  pool(): { size: number; waiting: number[] };
  /** Stops the waiting sandboxes. */
  close(): void;
}

export interface SandboxOptions {
  /** Bytes of stdout and of stderr kept. */
  outputLimitBytes: number;
  /** Sandboxes kept started and waiting (WEFT_SANDBOX_POOL_SIZE). */
  poolSize: number;
  /** The most a program's /tmp and its /data each hold, and the largest file it may write, in MB. */
  fileSpaceMb?: number;
  /** Files a program may have open at once. */
  openFiles?: number;
}

/** Why a process that did not answer ended, in the user's words. */
function unexpectedEnd(ended: Ended, limits: SandboxLimits, cpuSeconds: number): string {
  // An allocation the interpreter could not recover from ends it rather than raising MemoryError.
  if (/MemoryError|Cannot allocate memory/.test(ended.stderr)) return `exceeded its memory limit of ${limits.memoryMb} MB`;
  if (ended.signal === 'SIGXCPU') return `used up its CPU time limit of ${cpuSeconds} s`;
  return `ended its sandbox unexpectedly (${ended.signal ? `signal ${ended.signal}` : `exit code ${ended.exitCode}`})`;
}

export function createPythonSandbox(options: SandboxOptions): PythonSandbox {
  const fileSpaceMb = options.fileSpaceMb ?? 64;
  const openFiles = options.openFiles ?? 256;
  let problem: string | undefined | null = null;
  const pool = createWarmPool(() => startSandboxProcess(fileSpaceMb, options.outputLimitBytes), options.poolSize);
  /** The sandbox is checked once per process; without one, no program runs. */
  const requireSandbox = () => {
    if (problem === null) problem = sandboxProblem();
    if (problem !== undefined) throw new ToolError('execution', `the Python sandbox cannot be created here: ${problem}`);
  };

  return {
    async run(code, limits) {
      requireSandbox();
      const sandbox: SandboxProcess = pool.take();
      // While it has a program, a sandbox keeps its host alive.
      sandbox.keepHostAlive(true);
      let stopped: string | undefined;
      const stop = (why: string) => {
        stopped ??= why;
        sandbox.child.kill('SIGKILL');
      };
      const onAbort = () => stop('was cancelled');
      limits.signal?.addEventListener('abort', onAbort);
      let timer: NodeJS.Timeout | undefined;
      // The CPU limit is a backstop behind the wall-clock timeout, which a sleeping program also meets.
      const cpuSeconds = Math.ceil(limits.timeoutMs / 1000) + 1;
      try {
        await sandbox.ready;
        // The program's time starts when it is handed over, not while a cold sandbox starts.
        timer = setTimeout(() => stop(`timed out after ${limits.timeoutMs} ms`), limits.timeoutMs);
        const files = (limits.files ?? []).map((file) => ({ path: file.path, content: file.content.toString('base64') }));
        const ended = await sandbox.run({ code, files, memoryMb: limits.memoryMb, cpuSeconds, fileSizeMb: fileSpaceMb, openFiles });
        if (stopped) throw new ToolError('execution', `the Python program ${stopped}`);
        if (ended.result?.memory) throw new ToolError('execution', `the Python program exceeded its memory limit of ${limits.memoryMb} MB`);
        if (!ended.result) throw new ToolError('execution', `the Python program ${unexpectedEnd(ended, limits, cpuSeconds)}`);
        return { stdout: ended.stdout, stderr: ended.stderr, truncated: ended.truncated, ...(ended.result.error ? { error: ended.result.error } : {}) };
      } catch (err) {
        // Cancelled (while the program ran, or while a cold sandbox was still starting): the cancellation is the answer.
        if (limits.signal?.aborted) throw limits.signal.reason;
        throw err;
      } finally {
        clearTimeout(timer);
        limits.signal?.removeEventListener('abort', onAbort);
        sandbox.child.kill('SIGKILL');
      }
    },
    async prewarm() {
      requireSandbox();
      await pool.fill();
    },
    pool: () => ({ size: options.poolSize, waiting: pool.waiting().flatMap((sandbox) => (sandbox.child.pid ? [sandbox.child.pid] : [])) }),
    close() {
      pool.close();
    },
  };
}
