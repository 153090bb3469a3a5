import { z } from 'zod';

// How big each process is and which build a worker is (read with the rest in core/config.ts):
// the Postgres pool and its timeouts, the worker's slots, and its worker-deployment version.

export const capacityEnvSchema = z.object({
  WEFT_DB_POOL_SIZE: z.coerce.number().int().positive().default(10).describe('Postgres connections per API or worker process.'),
  // A new connection, or a free one from a busy pool, within this or the query fails (and its activity retries).
  WEFT_DB_CONNECT_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .nonnegative()
    .default(30_000)
    .describe('How long a query waits for a connection (a new one, or a free one from a busy pool) before failing (0: no limit).'),
  WEFT_DB_IDLE_TIMEOUT_MS: z.coerce.number().int().nonnegative().default(10_000).describe('How long an idle Postgres connection is kept (0: no limit).'),
  // Unset: the Temporal SDK's defaults.
  WEFT_WORKER_ACTIVITY_SLOTS: z.coerce.number().int().positive().optional().describe("Activities a worker runs at once. Unset: the Temporal SDK's default."),
  WEFT_WORKER_WORKFLOW_TASK_SLOTS: z.coerce
    .number()
    .int()
    .min(2)
    .optional()
    .describe("Workflow tasks a worker runs at once. Unset: the Temporal SDK's default."),
  // Workflows kept in memory between their workflow tasks. The SDK's default grows with the heap
  // limit (thousands), so memory grew with the tasks in flight; past this many, the least recently
  // used one is evicted and replays its history when it next has work (bench/in-flight-bench.ts).
  WEFT_WORKER_CACHED_WORKFLOWS: z.coerce
    .number()
    .int()
    .nonnegative()
    .default(250)
    .describe(
      'Workflows a worker keeps in memory between their workflow tasks; past it the least recently used is evicted and replays its history when it next has work, so memory stays bounded.',
    ),
  // Worker versioning (workers/worker-version.ts): each worker is one build of a Temporal worker
  // deployment, named by its workflow code unless given, and a task stays on the build that started it.
  WEFT_WORKER_VERSIONING: z
    .enum(['on', 'off'])
    .default('on')
    .describe('`off`: workers are unversioned, and a change of workflow code needs a patch instead of a new build.'),
  WEFT_WORKER_DEPLOYMENT: z.string().min(1).default('weft').describe('The Temporal worker deployment each worker is a build of.'),
  WEFT_WORKER_BUILD_ID: z.string().min(1).optional().describe("The worker's build id (an image tag, say). Default: `wf-` and the hash of its workflow bundle."),
  WEFT_WORKER_PROMOTE: z
    .enum(['always', 'when-unset', 'never'])
    .default('when-unset')
    .describe(
      "Whether a worker makes its build the deployment's current version once it polls: `always`, `when-unset` (only a deployment's first build), or `never` (an operator promotes). `make up`, `make cluster` and compose set `always`.",
    ),
});

/** A Postgres pool: connections at most, and how long to wait for one and keep an idle one (0: no limit). */
export interface PoolSettings {
  size: number;
  connectTimeoutMs: number;
  idleTimeoutMs: number;
}

/** A worker build in a Temporal worker deployment: it takes the tasks the deployment's current version gets. */
export interface WorkerVersion {
  deploymentName: string;
  buildId: string;
}

export interface WorkerCapacity {
  activitySlots?: number;
  workflowTaskSlots?: number;
  cachedWorkflows?: number;
  /** Set: worker versioning is on, and each task workflow stays on the build that started it. */
  version?: WorkerVersion;
}

/**
 * Whether a worker makes its build the deployment's current version (new tasks go to it) once it
 * polls: always (`make up`, `make cluster`, compose: one build at a time), when the deployment has
 * no current version yet (the default: a first deploy), or never (a rollout an operator promotes).
 */
export type BuildPromotion = 'always' | 'when-unset' | 'never';

/** A worker process's versioning: its deployment, its build id (absent: its workflow code's), how it is promoted. */
export interface WorkerVersioning {
  deploymentName: string;
  buildId?: string;
  promote: BuildPromotion;
}

export interface CapacitySettings {
  pool: PoolSettings;
  worker: WorkerCapacity;
  /** Absent when WEFT_WORKER_VERSIONING=off: the worker is unversioned. */
  versioning?: WorkerVersioning;
}

function versioningOf(e: z.infer<typeof capacityEnvSchema>): Pick<CapacitySettings, 'versioning'> {
  if (e.WEFT_WORKER_VERSIONING === 'off') return {};
  return {
    versioning: {
      deploymentName: e.WEFT_WORKER_DEPLOYMENT,
      ...(e.WEFT_WORKER_BUILD_ID ? { buildId: e.WEFT_WORKER_BUILD_ID } : {}),
      promote: e.WEFT_WORKER_PROMOTE,
    },
  };
}

export function capacitySettingsOf(e: z.infer<typeof capacityEnvSchema>): CapacitySettings {
  return {
    pool: { size: e.WEFT_DB_POOL_SIZE, connectTimeoutMs: e.WEFT_DB_CONNECT_TIMEOUT_MS, idleTimeoutMs: e.WEFT_DB_IDLE_TIMEOUT_MS },
    worker: {
      ...(e.WEFT_WORKER_ACTIVITY_SLOTS ? { activitySlots: e.WEFT_WORKER_ACTIVITY_SLOTS } : {}),
      ...(e.WEFT_WORKER_WORKFLOW_TASK_SLOTS ? { workflowTaskSlots: e.WEFT_WORKER_WORKFLOW_TASK_SLOTS } : {}),
      cachedWorkflows: e.WEFT_WORKER_CACHED_WORKFLOWS,
    },
    ...versioningOf(e),
  };
}
