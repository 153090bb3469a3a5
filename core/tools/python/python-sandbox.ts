import { ToolError } from '../tool';
import { sandboxProblem } from './bubblewrap';
import { treeResidentMb } from './process-tree';
import { startSandboxProcess } from './sandbox-process';
import { createSnapshots, type Snapshots } from './snapshot';
import { createWarmPool } from './warm-pool';
import { log } from '../../telemetry/logger';

// Python without a way out. Each program runs in its own process (sandbox-runner.cjs): CPython as
// WebAssembly (pyodide, offline, with its standard library) in a bubblewrap container
// (bubblewrap.ts: its own user, pid, ipc, uts and network namespaces, an unprivileged uid, a root
// holding only the interpreter's files), under Node's permission model inside it, with an empty
// environment, a memory cap (the process tree's resident memory is watched and killed past it) and
// a wall-clock timeout. An interpreter inside the worker would not be a sandbox: Python reaches
// the host's JavaScript objects through the FFI; here it reaches only its own powerless process.
// A pool of interpreters waits loaded (warm-pool.ts), started from a memory snapshot of a loaded
// interpreter once there is one (snapshot.ts), and each runs exactly one program.

export interface SandboxResult {
  stdout: string;
  stderr: string;
  /** Output beyond the cap was dropped. */
  truncated: boolean;
  /** The Python exception, with its traceback, when the program raised one. */
  error?: string;
}

/** A file the program may read, under /data; its own writes stay in the sandbox's memory. */
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
  /** Makes sure the snapshot is made and the pool's interpreters with this memory cap are loaded and waiting. */
  prewarm(memoryMb: number): Promise<void>;
  /** Stops the waiting interpreters. */
  close(): void;
}

export interface SandboxOptions {
  /** Bytes of stdout and of stderr kept. */
  outputLimitBytes: number;
  /** Interpreters kept loaded and waiting (WEFT_SANDBOX_POOL_SIZE). */
  poolSize: number;
  /** How often the sandbox's resident memory is checked. */
  memoryCheckMs?: number;
}

export function createPythonSandbox(options: SandboxOptions): PythonSandbox {
  const memoryCheckMs = options.memoryCheckMs ?? 25;
  let problem: string | undefined | null = null;
  let snapshots: Snapshots | undefined;
  const pool = createWarmPool((memoryMb) => startSandboxProcess(memoryMb, options.outputLimitBytes, snapshots?.current()), options.poolSize);
  /** The sandbox is checked once per process; without one, no program runs. Its first use starts the snapshot. */
  const requireSandbox = (memoryMb: number) => {
    if (problem === null) problem = sandboxProblem();
    if (problem !== undefined) throw new ToolError('execution', `the Python sandbox cannot be created here: ${problem}`);
    // Without a snapshot interpreters load from scratch, which is slower and no less safe.
    snapshots ??= createSnapshots(memoryMb, (why) => log().warn(`python sandbox: ${why}; interpreters will load from scratch`));
  };

  return {
    async run(code, limits) {
      requireSandbox(limits.memoryMb);
      const sandbox = pool.take(limits.memoryMb);
      const { child } = sandbox;
      let stopped: string | undefined;
      const stop = (why: string) => {
        stopped ??= why;
        child.kill('SIGKILL');
      };
      let timer: NodeJS.Timeout | undefined;
      const watch = setInterval(() => {
        if (child.pid && treeResidentMb(child.pid) > limits.memoryMb) stop(`exceeded its memory limit of ${limits.memoryMb} MB`);
      }, memoryCheckMs);
      const onAbort = () => stop('was cancelled');
      limits.signal?.addEventListener('abort', onAbort);
      child.ref();
      try {
        await sandbox.ready;
        // The program's time starts when it is handed over, not while a cold interpreter loads.
        timer = setTimeout(() => stop(`timed out after ${limits.timeoutMs} ms`), limits.timeoutMs);
        const files = (limits.files ?? []).map((file) => ({ path: file.path, content: file.content.toString('base64') }));
        child.stdin!.end(`${JSON.stringify({ code, files })}\n`);
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
        // After the answer is handed back: starting processes takes the event loop a few ms.
        setImmediate(() => pool.done());
      }
    },
    async prewarm(memoryMb) {
      requireSandbox(memoryMb);
      await snapshots?.settled;
      await pool.fill(memoryMb);
    },
    close() {
      pool.close();
      snapshots?.close();
      snapshots = undefined;
    },
  };
}
