import type { SandboxProcess } from './sandbox-process';

// Sandboxes started and waiting, so a program finds one ready. A taken sandbox is never returned:
// each runs one program and dies. Every take starts its replacement at once, so under steady use
// the pool stays full rather than waiting for a quiet moment. Waiting sandboxes carry no caps
// (memory, CPU, file size: the program's own are applied when it is handed over), so programs
// with different caps share one pool.

export interface WarmPool {
  /** A waiting sandbox (or, when none waits, a new one), and a replacement started for it. */
  take(): SandboxProcess;
  /** Fills the pool and waits until every sandbox in it is ready. */
  fill(): Promise<void>;
  /** The sandboxes waiting now. */
  waiting(): readonly SandboxProcess[];
  close(): void;
}

export function createWarmPool(start: () => SandboxProcess, size: number): WarmPool {
  let waiting: SandboxProcess[] = [];

  const refill = () => {
    while (waiting.length < size) {
      const sandbox = start();
      waiting.push(sandbox);
      // One that cannot start is dropped, and not retried until the next take.
      sandbox.ready.catch(() => (waiting = waiting.filter((other) => other !== sandbox)));
    }
  };

  return {
    take() {
      // One that died while it waited (killed from outside) would only fail its program.
      waiting = waiting.filter((sandbox) => sandbox.child.exitCode === null && sandbox.child.signalCode === null);
      const sandbox = waiting.shift() ?? start();
      refill();
      return sandbox;
    },
    async fill() {
      refill();
      const pending = [...waiting];
      // A host waiting for them stays alive until they are ready.
      for (const sandbox of pending) sandbox.keepHostAlive(true);
      try {
        await Promise.all(pending.map((sandbox) => sandbox.ready));
      } finally {
        // (A sandbox taken meanwhile is its program's to hold.)
        for (const sandbox of pending) if (waiting.includes(sandbox)) sandbox.keepHostAlive(false);
      }
    },
    waiting: () => waiting,
    close() {
      for (const sandbox of waiting) sandbox.child.kill('SIGKILL');
      waiting = [];
    },
  };
}
