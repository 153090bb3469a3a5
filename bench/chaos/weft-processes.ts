import type { ChildProcess } from 'node:child_process';
import { openSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as pause } from 'node:timers/promises';
import { apiNodeFlags, workerEnv, workerNodeFlags } from '../../infra/processes';
import { lastLines, startReadyProcess, stop } from '../../test/support/processes';

// Weft's API and workers as the production entry points run them (api/main.ts, workers/main.ts),
// each its own process with its output in the run's folder, so the chaos run can SIGKILL them.

export interface WeftProcess {
  /** SIGKILL: no drain, no cleanup; a worker's activities time out and run elsewhere. */
  kill(): Promise<void>;
  /** Starts it again after a kill, and waits until it is ready. */
  start(): Promise<void>;
  /** SIGTERM and wait: the graceful end. */
  stop(): Promise<void>;
  /** Its process id while it runs (a worker's Temporal identity starts with it). */
  pid(): number | undefined;
  /** How often it exited on its own (not killed or stopped by the run): each a crash of Weft's, restarted as a supervisor would. */
  unexpectedExits(): number;
}

// Whatever ends the run (even an interrupted one) takes its processes with it.
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

function weftProcess(name: string, entry: string, env: NodeJS.ProcessEnv, nodeFlags: string[], readyText: string, folder: string): WeftProcess {
  let child: ChildProcess | undefined;
  let ending: ChildProcess | undefined;
  let unexpectedExits = 0;
  // As a supervisor does: a process that exits before it is ready (its database is restarting) is started again.
  async function start(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await startOnce();
      } catch (err) {
        if (attempt >= 60) throw new Error(`${name} did not start (see ${folder}/${name}.log): ${(err as Error).message}`, { cause: err });
        await pause(1_000);
      }
    }
  }
  async function startOnce(): Promise<void> {
    const proc = await startReadyProcess(entry, env, readyText, nodeFlags, openSync(path.join(folder, `${name}.log`), 'a'));
    child = proc;
    live.add(proc);
    proc.once('close', (code, signal) => {
      live.delete(proc);
      // Exited though nobody killed or stopped it: Weft crashed. Counted, said, and started again.
      if (proc !== ending && proc === child) {
        unexpectedExits += 1;
        console.error(`${name} exited on its own (${code ?? signal}); its last lines:\n${lastLines(proc.stdoutText(), 5)}`);
        void start().catch((err: unknown) => console.error(`${name} could not be started again: ${(err as Error).message}`));
      }
    });
  }
  const end = async (signal?: NodeJS.Signals) => {
    if (!child) return;
    ending = child;
    await stop(child, signal);
  };
  return {
    start,
    kill: () => end('SIGKILL'),
    stop: () => end(),
    pid: () => child?.pid,
    unexpectedExits: () => unexpectedExits,
  };
}

export const startWeftApi = async (env: NodeJS.ProcessEnv, folder: string, name = 'api') => {
  const api = weftProcess(name, 'api/main.ts', env, apiNodeFlags, 'api serving gRPC', folder);
  await api.start();
  return api;
};

export const startWeftWorker = async (env: NodeJS.ProcessEnv, folder: string, name: string) => {
  const worker = weftProcess(name, 'workers/main.ts', { ...env, ...workerEnv }, workerNodeFlags, 'worker polling task queue', folder);
  await worker.start();
  return worker;
};
