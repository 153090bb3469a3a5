import { countCpu, printCpuPerOperation, type CpuPart } from './cpu-accounting';
import { summarize, timed, type Summary } from './stats';

// Throughput of several sides of a comparison under the same load, on a machine whose speed drifts
// by up to 3x over minutes: each side runs in slices taken in turns, each round starting one side
// later (A B C, B C A, C A B, ...), so that the drift weighs on every side alike. On this 2-core
// machine throughput follows CPU per operation, so each side also counts the CPU its parts used.

/** One side of the comparison, and what it has measured so far. */
export interface LoadSide {
  name: string;
  runOne: () => Promise<unknown>;
  cpuParts: CpuPart[];
  latencies: number[];
  seconds: number;
  cpuMs: Map<string, number>;
}

export const loadSide = (name: string, runOne: () => Promise<unknown>, cpuParts: CpuPart[]): LoadSide => ({
  name,
  runOne,
  cpuParts,
  latencies: [],
  seconds: 0,
  cpuMs: new Map(),
});

/** `concurrency` at a time, each starting when one ends, for a slice of the run; adds to the side's tallies. */
async function runSlice(side: LoadSide, sliceSeconds: number, concurrency: number): Promise<void> {
  const cpuUsed = countCpu(side.cpuParts);
  const begin = Date.now();
  const deadline = begin + sliceSeconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < deadline) await timed(side.latencies, side.runOne);
    }),
  );
  side.seconds += (Date.now() - begin) / 1000;
  for (const [part, ms] of cpuUsed()) side.cpuMs.set(part, (side.cpuMs.get(part) ?? 0) + ms);
}

/** Every side for `seconds` in all, in `slices` slices taken in turns; prints each side's CPU per operation. */
export async function interleavedThroughput(sides: LoadSide[], load: { seconds: number; slices: number; concurrency: number }): Promise<Summary[]> {
  for (let slice = 0; slice < load.slices; slice++) {
    for (let turn = 0; turn < sides.length; turn++) await runSlice(sides[(slice + turn) % sides.length]!, load.seconds / load.slices, load.concurrency);
  }
  return sides.map((side) => {
    const summary = summarize(side.name, side.latencies, side.seconds);
    printCpuPerOperation(side.name, side.cpuParts, side.cpuMs, summary.count);
    return summary;
  });
}
