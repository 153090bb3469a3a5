import { readFileSync, readdirSync } from 'node:fs';

// A sandbox is a small tree of processes (bwrap, its init in the new pid namespace, the
// interpreter); its memory is what all of them hold, read from the host's /proc.

function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((tid) => readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean).map(Number));
  } catch {
    return []; // already gone
  }
}

function residentMbOf(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0; // already gone
  }
}

/** Resident memory of a process and all its descendants, in MB. */
export function treeResidentMb(pid: number): number {
  let total = 0;
  const pending = [pid];
  while (pending.length > 0) {
    const next = pending.pop()!;
    total += residentMbOf(next);
    pending.push(...childrenOf(next));
  }
  return total;
}
