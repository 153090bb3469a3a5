import type { SandboxProcess } from './sandbox-process';

// Interpreters loaded and waiting, so a program starts warm while the pool has one. A taken
// interpreter is never returned: each runs one program and dies. Refills start once no program is
// running, at most two loading at once, so loading (CPU-heavy) never delays a program's answer.
// The pool serves one memory cap at a time (the last asked for); another cap replaces it.

export interface WarmPool {
  /** A waiting (or, when the pool is empty, a cold) interpreter for this memory cap. */
  take(memoryMb: number): SandboxProcess;
  /** A program that took an interpreter has its answer: once none is running, the pool refills in the background. */
  done(): void;
  /** Fills the pool for this cap and waits until every interpreter in it is ready. */
  fill(memoryMb: number): Promise<void>;
  close(): void;
}

export function createWarmPool(start: (memoryMb: number) => SandboxProcess, size: number): WarmPool {
  let memoryMb: number | undefined;
  let waiting: SandboxProcess[] = [];
  let loading = 0;
  let running = 0;
  const refillsAtOnce = 2;

  const forCap = (cap: number) => {
    if (memoryMb === cap) return;
    for (const sandbox of waiting) sandbox.child.kill('SIGKILL');
    waiting = [];
    memoryMb = cap;
  };

  const refill = () => {
    while (running === 0 && loading < refillsAtOnce && memoryMb !== undefined && waiting.length < size) {
      const cap = memoryMb;
      const sandbox = start(cap);
      waiting.push(sandbox);
      loading += 1;
      sandbox.ready.then(
        () => {
          loading -= 1;
          if (memoryMb === cap) refill();
        },
        () => {
          // A sandbox that cannot start is dropped, and not retried until the next program asks.
          loading -= 1;
          waiting = waiting.filter((other) => other !== sandbox);
        },
      );
    }
  };

  return {
    take(cap) {
      forCap(cap);
      running += 1;
      return waiting.shift() ?? start(cap);
    },
    done() {
      running -= 1;
      refill();
    },
    async fill(cap) {
      forCap(cap);
      while (waiting.length < size) waiting.push(start(cap));
      const pending = [...waiting];
      // One the host waits for keeps it alive until it is ready.
      for (const sandbox of pending) sandbox.child.ref();
      try {
        await Promise.all(pending.map((sandbox) => sandbox.ready));
      } finally {
        for (const sandbox of pending) sandbox.child.unref();
      }
    },
    close() {
      for (const sandbox of waiting) sandbox.child.kill('SIGKILL');
      waiting = [];
      memoryMb = undefined;
    },
  };
}
