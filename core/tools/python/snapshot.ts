import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnRunner } from './sandbox-process';

// A memory snapshot of an interpreter that has loaded and preloaded its common modules, before any
// program: interpreters started from it are ready in about a fifth of the time. It is made once per
// process, inside a sandbox like any other, and the same state serves everyone (no program has run).

export interface Snapshots {
  /** The snapshot's path once it is made; undefined before, or when it could not be made. */
  current(): string | undefined;
  /** Resolves once the snapshot is made (its path) or has failed (undefined). */
  settled: Promise<string | undefined>;
  close(): void;
}

const snapshotTimeoutMs = 60_000;

export function createSnapshots(memoryMb: number, onProblem: (problem: string) => void): Snapshots {
  const dir = mkdtempSync(path.join(tmpdir(), 'weft-pyodide-'));
  let ready: string | undefined;
  let closed = false;
  const child = spawnRunner(memoryMb, 0, 'snapshot');
  child.unref();
  const chunks: Buffer[] = [];
  const stderr: string[] = [];
  child.stdout!.on('data', (chunk: Buffer) => chunks.push(chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => stderr.push(chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), snapshotTimeoutMs);
  timer.unref();
  const settled = new Promise<string | undefined>((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      if (closed) return resolve(undefined);
      if (code !== 0) {
        onProblem(`the interpreter snapshot could not be made (exit ${code}): ${stderr.join('').slice(-300)}`);
        return resolve(undefined);
      }
      const file = path.join(dir, 'pyodide.snap');
      writeFileSync(file, Buffer.concat(chunks));
      ready = file;
      resolve(file);
    }),
  );
  return {
    current: () => ready,
    settled,
    close() {
      closed = true;
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
