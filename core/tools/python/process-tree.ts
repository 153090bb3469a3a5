import { readFileSync, readdirSync } from 'node:fs';

// A sandbox is a small tree of processes (bwrap outside, the interpreter inside, any thread it
// started); its memory is its proportional set size (PSS: each shared page divided among the
// processes that map it, so the interpreter's code, shared by every sandbox, counts once in all),
// read from the host's /proc.

function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((tid) => readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean).map(Number));
  } catch {
    return []; // already gone
  }
}

function pssBytesOf(pid: number): number {
  try {
    const match = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0; // already gone
  }
}

/** Proportional set size of a process and all its descendants, in bytes. */
export function treePssBytes(pid: number): number {
  let total = 0;
  const pending = [pid];
  while (pending.length > 0) {
    const next = pending.pop()!;
    total += pssBytesOf(next);
    pending.push(...childrenOf(next));
  }
  return total;
}
