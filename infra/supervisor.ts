import { stopProcess, type ManagedProcess } from './processes';

// What `make up` and `make cluster` share: the processes they started and what else needs stopping,
// stopped in reverse order on Ctrl-C (or SIGTERM), or when a process that must run exits.

export interface Supervisor {
  /** A process to stop at the end; with `essential`, its exit stops everything. */
  add(proc: ManagedProcess, options?: { essential?: boolean }): ManagedProcess;
  /** Something else to stop (a server, a database), after the processes. */
  onStop(stop: () => Promise<void>): void;
  stopAll(code: number): Promise<void>;
}

export function createSupervisor(log: (line: string) => void): Supervisor {
  const processes: ManagedProcess[] = [];
  const stops: Array<() => Promise<void>> = [];
  let stopping = false;
  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    log('stopping...');
    for (const proc of [...processes].reverse()) await stopProcess(proc);
    for (const stop of stops.reverse()) await stop().catch((err: unknown) => log(`stop failed: ${String(err)}`));
    log('stopped');
    process.exit(code);
  };
  process.on('SIGINT', () => void stopAll(0));
  process.on('SIGTERM', () => void stopAll(0));
  return {
    add(proc, options = {}) {
      processes.push(proc);
      if (options.essential) {
        void proc.exited.then((code) => {
          if (stopping) return;
          log(`${proc.name} exited with code ${code}; stopping everything`);
          void stopAll(1);
        });
      }
      return proc;
    },
    onStop: (stop) => void stops.push(stop),
    stopAll,
  };
}
