import { readdirSync, readFileSync } from 'node:fs';

// Where a benchmark's CPU goes: the CPU time each part of the system (Temporal, Postgres, the
// workers, the bench's own process with its API and clients) used over a phase, from /proc. On a
// saturated 2-core machine throughput follows CPU per task, so this says which part to cut.

const ticksPerSecond = 100; // USER_HZ on Linux

/**
 * A part of the system: its processes, found by pid or by a text their command line holds (any of
 * them); with `threads`, only those of their threads whose name (/proc/<pid>/task/<tid>/comm) it accepts.
 */
export interface CpuPart {
  name: string;
  /** A share of a whole (a process's threads of one kind): printed beside the other shares, after the whole's total. */
  shareOf?: { whole: string; share: string };
  pids?: number[];
  commandHolds?: string[];
  threads?: (threadName: string) => boolean;
}

/**
 * The parts every bench shares: Temporal (the dev server, or the real server's four services under
 * WEFT_TEST_TEMPORAL=cluster), and Postgres (every backend and helper process).
 */
export const temporalCpu: CpuPart = { name: 'Temporal', commandHolds: ['temporal server start-dev', 'bin/temporal-server '] };
export const postgresCpu: CpuPart = { name: 'Postgres', commandHolds: ['postgres:'] };

/** The CPU ticks of a process (`pid`) or of one of its threads (`pid/task/tid`). */
function cpuTicks(path: string): number {
  try {
    const stat = readFileSync(`/proc/${path}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0; // the process ended between listing and reading
  }
}

function commandOf(pid: string): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

/** The threads of a process whose name `accepts`, as /proc paths. */
function threadsOf(pid: string, accepts: (threadName: string) => boolean): string[] {
  try {
    return readdirSync(`/proc/${pid}/task`)
      .map((tid) => `${pid}/task/${tid}`)
      .filter((path) => {
        try {
          return accepts(readFileSync(`/proc/${path}/comm`, 'utf8').trim());
        } catch {
          return false; // the thread ended meanwhile
        }
      });
  } catch {
    return []; // the process ended meanwhile
  }
}

/** CPU ticks per process (or per thread) of each part. */
function snapshot(parts: CpuPart[]): Map<string, Map<string, number>> {
  const pids = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  return new Map(
    parts.map((part) => {
      const own = part.pids ? part.pids.map(String) : pids.filter((pid) => part.commandHolds?.some((text) => commandOf(pid).includes(text)));
      const counted = part.threads ? own.flatMap((pid) => threadsOf(pid, part.threads!)) : own;
      return [part.name, new Map(counted.map((path) => [path, cpuTicks(path)]))];
    }),
  );
}

/** Thread names of a Temporal TypeScript worker process (Node 24, the SDK's Rust core), by what they do. */
const workerThreadKinds: Array<[kind: string, accepts: (threadName: string) => boolean]> = [
  ['main thread (activities, the SDK)', (name) => name === 'MainThread'],
  ['workflow thread', (name) => name === 'WorkerThread'],
  ['V8 GC and compiler threads', (name) => name === 'V8Worker' || name === 'DelayedTaskSche'],
  ['Temporal core', (name) => name.startsWith('tokio-runtime') || name === 'temporal-real-s' || name === 'workflow-proces'],
];

/**
 * A worker process's CPU by the kind of thread that used it, parts of `name`; the rest (libuv's
 * pool, the inspector's) as its other threads. A thread that ended in between is not counted.
 */
export function workerThreadParts(name: string, pid: number): CpuPart[] {
  const known = (threadName: string) => workerThreadKinds.some(([, accepts]) => accepts(threadName));
  return [
    ...workerThreadKinds.map(([kind, threads]) => ({ name: `${name}: ${kind}`, shareOf: { whole: name, share: kind }, pids: [pid], threads })),
    { name: `${name}: other threads`, shareOf: { whole: name, share: 'other threads' }, pids: [pid], threads: (threadName: string) => !known(threadName) },
  ];
}

/**
 * Starts counting; the returned function gives each part's CPU milliseconds since then. A process
 * that ended in between (a closed database connection's backend) is not counted: a slight undercount.
 */
export function countCpu(parts: CpuPart[]): () => Map<string, number> {
  const before = snapshot(parts);
  return () => {
    const after = snapshot(parts);
    return new Map(
      parts.map(({ name }) => {
        const earlier = before.get(name)!;
        const ticks = [...after.get(name)!].reduce((sum, [pid, now]) => sum + now - (earlier.get(pid) ?? 0), 0);
        return [name, (ticks * 1000) / ticksPerSecond];
      }),
    );
  };
}

/** One line: the total CPU milliseconds per operation, and each part's (a whole's shares beside its total). */
export function printCpuPerOperation(title: string, parts: CpuPart[], used: Map<string, number>, operations: number): void {
  const perOperation = (ms: number) => (ms / operations).toFixed(1);
  const msOf = (part: CpuPart) => used.get(part.name) ?? 0;
  const sumOf = (some: CpuPart[]) => some.reduce((sum, part) => sum + msOf(part), 0);
  const wholes = [...new Set(parts.map((part) => part.shareOf?.whole ?? part.name))];
  const shown = wholes.map((whole) => {
    const shares = parts.filter((part) => part.shareOf?.whole === whole);
    if (shares.length === 0) return `${whole} ${perOperation(sumOf(parts.filter((part) => part.name === whole)))}`;
    return `${whole} ${perOperation(sumOf(shares))} [${shares.map((part) => `${part.shareOf!.share} ${perOperation(msOf(part))}`).join(', ')}]`;
  });
  console.log(`${title}: ${perOperation(sumOf(parts))} CPU ms per task (${shown.join(', ')})`);
}
