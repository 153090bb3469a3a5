import type { Pool } from 'pg';
import { Gauge, type Registry } from 'prom-client';
import { countPendingApprovals } from '../core/tasks/approvals';
import { countUnfinishedTasks } from '../core/tasks/task-index';

// What the API's /metrics adds to its requests: open event streams (this process's), and, read from
// the database at scrape time, the tasks not yet ended by status and mode and the approvals waiting
// for a person (the deployment's: every API process reports the same values; aggregate with max).

export function watchApiState(registry: Registry, state: { pool: Pool; openStreams: () => number }): void {
  new Gauge({
    name: 'weft_stream_clients',
    help: 'Task event streams open on this API process (gRPC and SSE)',
    registers: [registry],
    collect() {
      this.set(state.openStreams());
    },
  });
  new Gauge({
    name: 'weft_tasks_unfinished',
    help: 'Tasks queued or running, by status and mode (the whole deployment)',
    labelNames: ['status', 'mode'],
    registers: [registry],
    async collect() {
      const counts = await countUnfinishedTasks(state.pool);
      this.reset();
      for (const { status, mode, count } of counts) this.set({ status, mode }, count);
    },
  });
  new Gauge({
    name: 'weft_approvals_pending',
    help: 'Approvals waiting for a decision (the whole deployment)',
    registers: [registry],
    async collect() {
      this.set(await countPendingApprovals(state.pool));
    },
  });
}
