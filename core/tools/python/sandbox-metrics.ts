import { Gauge, type Registry } from 'prom-client';
import type { PythonSandbox } from './python-sandbox';
import { treePssBytes } from './process-tree';

// The Python sandbox pool in the worker's metrics, read when scraped: how many sandboxes wait
// (against the pool's size), and each waiting sandbox's memory (PSS, its tree's own share).

export function watchSandboxPool(registry: Registry, sandbox: Pick<PythonSandbox, 'pool'>): void {
  const registers = [registry];
  new Gauge({ name: 'weft_python_sandbox_pool_size', help: 'Python sandboxes the pool keeps started and waiting', registers }).set(sandbox.pool().size);
  new Gauge({
    name: 'weft_python_sandbox_pool_waiting',
    help: 'Python sandboxes started and waiting for a program now',
    registers,
    collect() {
      this.set(sandbox.pool().waiting.length);
    },
  });
  new Gauge({
    name: 'weft_python_sandbox_memory_bytes',
    help: "Each waiting Python sandbox's proportional set size (PSS), by its place in the pool",
    labelNames: ['sandbox'],
    registers,
    collect() {
      this.reset();
      sandbox.pool().waiting.forEach((pid, index) => this.set({ sandbox: String(index) }, treePssBytes(pid)));
    },
  });
}
