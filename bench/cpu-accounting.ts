import { readdirSync, readFileSync } from 'node:fs';

// Where a benchmark's CPU goes: the CPU time each part of the system (Temporal, Postgres, the
// workers, the bench's own process with its API and clients) used over a phase, from /proc. On a
// saturated 2-core machine throughput follows CPU per task, so this says which part to cut.

const ticksPerSecond = 100; // USER_HZ on Linux

/** A part of the system: its processes, found by pid or by a text their command line holds (any of them). */
export interface CpuPart {
  name: string;
  pids?: number[];
  commandHolds?: string[];
}

/**
 * The parts every bench shares: Temporal (the dev server, or the real server's four services under
 * WEFT_TEST_TEMPORAL=cluster), and Postgres (every backend and helper process).
 */
export const temporalCpu: CpuPart = { name: 'Temporal', commandHolds: ['temporal server start-dev', 'bin/temporal-server '] };
export const postgresCpu: CpuPart = { name: 'Postgres', commandHolds: ['postgres:'] };

function cpuTicks(pid: string): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
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

/** CPU ticks per process of each part. */
function snapshot(parts: CpuPart[]): Map<string, Map<string, number>> {
  const pids = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  return new Map(
    parts.map((part) => {
      const own = part.pids ? part.pids.map(String) : pids.filter((pid) => part.commandHolds?.some((text) => commandOf(pid).includes(text)));
      return [part.name, new Map(own.map((pid) => [pid, cpuTicks(pid)]))];
    }),
  );
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

/** One line per part: CPU milliseconds per operation, and the total. */
export function printCpuPerOperation(title: string, used: Map<string, number>, operations: number): void {
  const total = [...used.values()].reduce((a, b) => a + b, 0);
  const parts = [...used].map(([name, ms]) => `${name} ${(ms / operations).toFixed(1)}`).join(', ');
  console.log(`${title}: ${(total / operations).toFixed(1)} CPU ms per task (${parts})`);
}
