// Small helpers shared by the benchmarks: timing, percentiles, and a table printer.

export function percentile(sortedMs: number[], p: number): number {
  if (sortedMs.length === 0) return NaN;
  const index = Math.min(sortedMs.length - 1, Math.ceil((p / 100) * sortedMs.length) - 1);
  return sortedMs[Math.max(0, index)]!;
}

/** The middle value (the upper of the two middle ones for an even count); NaN for none. */
export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

export interface Summary {
  name: string;
  count: number;
  seconds: number;
  p50: number;
  p99: number;
  opsPerSecond: number;
}

export function summarize(name: string, latenciesMs: number[], seconds: number, operations = latenciesMs.length): Summary {
  const sorted = [...latenciesMs].sort((a, b) => a - b);
  return { name, count: operations, seconds, p50: percentile(sorted, 50), p99: percentile(sorted, 99), opsPerSecond: operations / seconds };
}

export async function timed<T>(latencies: number[], work: () => Promise<T>): Promise<T> {
  const start = process.hrtime.bigint();
  const result = await work();
  latencies.push(Number(process.hrtime.bigint() - start) / 1e6);
  return result;
}

export function printTable(rows: Summary[]): void {
  const header = ['benchmark', 'ops', 'p50 ms', 'p99 ms', 'ops/s'];
  const lines = rows.map((r) => [
    r.name,
    String(r.count),
    r.p50.toFixed(2),
    r.p99.toFixed(2),
    Number.isFinite(r.opsPerSecond) ? r.opsPerSecond.toFixed(0) : '-',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const format = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log(format(header));
  for (const line of lines) console.log(format(line));
}
