import type { Pool } from 'pg';
import type { ModelGateway } from '../../llm/gateway';
import type { RuntimeStore } from '../../store';
import type { ToolRegistry } from '../../tools/registry';
import type { TaskObserver } from '../../telemetry/task-metrics';

/** What a task's writes run against; built once per worker. */
export interface TaskWriteDeps {
  pool: Pool;
  store: RuntimeStore;
  /** Every model call goes through it; a step that names no tier asks for MEDIUM. */
  gateway: ModelGateway;
  /** How long a model step's answer serves identical steps of tasks that ask for caching. */
  cacheTtlSeconds: number;
  tools: ToolRegistry;
  /** Sees tasks end, approvals decided and steps served from the cache (metrics). */
  observer?: TaskObserver;
}

/**
 * How a long step stays in touch with whoever runs it (a Temporal activity): `keepAlive` wraps slow
 * calls so the runner knows the step is alive, and `signal` aborts them when the step is cancelled.
 */
export interface StepContext {
  signal?: AbortSignal;
  /** Which attempt at the step this is (1 for the first); the runner retries a failed one. */
  attempt?: number;
  /** This attempt has just written its task's start: the task's run holds nothing else yet, so there is nothing to read back. */
  startRecordedNow?: boolean;
  keepAlive<T>(work: () => Promise<T>): Promise<T>;
}
