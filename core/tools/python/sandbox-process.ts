import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { ToolError } from '../tool';
import { launchOptions, runnerCommand, sandboxArguments } from './bubblewrap';

// One sandbox: an interpreter in its container (bubblewrap.ts) that starts, preloads, locks itself
// down (sandbox_runner.py) and waits for the one program it will ever run. Its stdin brings the
// program, its stdout and stderr are the program's (the first bytes of each are kept), and a
// fourth descriptor carries the runner's own messages: "ready", then the result.

/** What the runner needs besides the code: the caps are applied when the program is handed over. */
export interface ProgramMessage {
  code: string;
  files: Array<{ path: string; content: string }>;
  memoryMb: number;
  cpuSeconds: number;
  fileSizeMb: number;
  openFiles: number;
}

/** The runner's last word: the program's exception, or that it ran out of memory, or nothing (it ended well). */
export interface RunnerResult {
  error?: string;
  memory?: boolean;
}

export interface Ended {
  stdout: string;
  stderr: string;
  truncated: boolean;
  /** Undefined when the process ended without answering (killed, or crashed). */
  result?: RunnerResult;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
}

export interface SandboxProcess {
  child: ChildProcess;
  /** Resolves once the interpreter is loaded, locked down and waiting. */
  ready: Promise<void>;
  /** Whether this sandbox keeps its host's event loop alive (a waiting one does not). */
  keepHostAlive(keep: boolean): void;
  /** Hands the program over; resolves once the process has ended, with what it printed and answered. */
  run(program: ProgramMessage): Promise<Ended>;
}

/** A sandbox starts in tens of milliseconds; one that has not in this long never will. */
const startupTimeoutMs = 15_000;

/** The first `limit` bytes written to a stream, and whether more came. */
function capped(stream: Readable, limit: number) {
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  stream.on('error', () => {}); // a sandbox that died is reported by its result, not by the pipe
  stream.on('data', (chunk: Buffer) => {
    if (size + chunk.length > limit) truncated = true;
    const kept = chunk.subarray(0, Math.max(0, limit - size));
    chunks.push(kept);
    size += kept.length;
  });
  return { text: () => Buffer.concat(chunks).toString('utf8'), truncated: () => truncated };
}

/**
 * Bytes the runner's channel may carry in all: its "ready" and its result (a traceback at most).
 * The program can write there too, so past this the sandbox is ended rather than its words kept.
 */
const channelLimitBytes = 1024 * 1024;

/** The lines written to the runner's channel, at most channelLimitBytes of them; `overflow` is called once past that. */
function channelLines(stream: Readable, onLine: (line: string) => void, overflow: () => void): void {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  let size = 0;
  stream.on('data', (bytes: Buffer) => {
    size += bytes.length;
    if (size > channelLimitBytes) {
      stream.destroy();
      return overflow();
    }
    const lines = (pending + decoder.write(bytes)).split('\n');
    pending = lines.pop()!;
    lines.forEach(onLine);
  });
  stream.on('error', () => {}); // a sandbox that died is reported by its result, not by the pipe
}

/** The runner writes its result last; anything else on its channel (the program can write there too) is not an answer. */
function resultOf(lines: string[]): RunnerResult | undefined {
  try {
    const last = JSON.parse(lines.at(-1) ?? 'null') as { error?: unknown; memory?: unknown } | null;
    if (typeof last !== 'object' || last === null || Array.isArray(last)) return undefined;
    return { ...(typeof last.error === 'string' ? { error: last.error } : {}), ...(last.memory === true ? { memory: true } : {}) };
  } catch {
    return undefined;
  }
}

/** Starts a sandbox whose /tmp and /data hold at most fileSpaceMb each, keeping outputLimitBytes of each output. */
export function startSandboxProcess(fileSpaceMb: number, outputLimitBytes: number): SandboxProcess {
  const child = spawn('bwrap', [...sandboxArguments(fileSpaceMb), ...runnerCommand], { ...launchOptions, env: {}, stdio: ['pipe', 'pipe', 'pipe', 'pipe'] });
  const streams = [child.stdin!, child.stdout!, child.stderr!, child.stdio[3] as Readable] as const;
  const keepHostAlive = (keep: boolean) => {
    for (const handle of [child, ...streams] as unknown as Array<{ ref?: () => void; unref?: () => void }>) (keep ? handle.ref : handle.unref)?.call(handle);
  };
  // A waiting sandbox must not keep its host alive; a host that exits takes it along (--die-with-parent).
  keepHostAlive(false);
  const stdout = capped(streams[1], outputLimitBytes);
  const stderr = capped(streams[2], outputLimitBytes);
  const ended = new Promise<Pick<Ended, 'exitCode' | 'signal'>>((resolve) => child.on('close', (exitCode, signal) => resolve({ exitCode, signal })));
  const messages: string[] = [];
  let flooded = false;
  // The runner's first message says it is ready; a sandbox that ends before it never was.
  const ready = new Promise<void>((resolve, reject) => {
    channelLines(
      streams[3],
      (line) => {
        messages.push(line);
        resolve();
      },
      () => {
        flooded = true;
        child.kill('SIGKILL');
      },
    );
    void ended.then(() =>
      reject(new ToolError('execution', `the Python sandbox failed to start: ${stderr.text().slice(-500) || 'it ended before it was ready'}`)),
    );
  });
  const startup = setTimeout(() => child.kill('SIGKILL'), startupTimeoutMs);
  startup.unref();
  ready.then(
    () => clearTimeout(startup),
    () => {
      clearTimeout(startup);
      child.kill('SIGKILL');
    },
  );
  child.on('error', () => {}); // a sandbox that could not start is reported by `ready`
  streams[0].on('error', () => {}); // a sandbox that died is reported by its result, not by the pipe
  return {
    child,
    ready,
    keepHostAlive,
    async run(program) {
      streams[0].end(`${JSON.stringify(program)}\n`);
      const { exitCode, signal } = await ended;
      const result = flooded
        ? { error: `the program wrote more than ${channelLimitBytes} bytes to the sandbox's own channel (descriptor 3), so the sandbox was ended` }
        : resultOf(messages.slice(1));
      return {
        stdout: stdout.text(),
        stderr: stderr.text(),
        truncated: stdout.truncated() || stderr.truncated(),
        ...(result ? { result } : {}),
        exitCode,
        signal,
      };
    },
  };
}
