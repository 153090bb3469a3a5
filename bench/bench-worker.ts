import { workerEnv, workerNodeFlags } from '../infra/processes';
import { startReadyProcess } from '../test/support/processes';

/**
 * Weft's production worker (workers/main.ts, the prebuilt workflow bundle, configured as `make up`
 * runs it) in a process of its own, on the bench's queue and scripted model; `env` adds or
 * overrides settings, `nodeFlags` replaces `make up`'s Node flags. Stop it with test/support/processes' stop().
 */
export const startBenchWorker = (taskQueue: string, modelBaseURL: string, env: NodeJS.ProcessEnv = {}, nodeFlags = workerNodeFlags) =>
  startReadyProcess(
    'workers/main.ts',
    {
      WEFT_TASK_QUEUE: taskQueue,
      WEFT_LLM_BASE_URL: modelBaseURL,
      WEFT_LLM_MODEL: 'bench-model',
      WEFT_WORKSPACE_DIR: '.state/bench-workspaces',
      WEFT_WORKFLOW_BUNDLE: process.env.WEFT_TEST_WORKFLOW_BUNDLE!,
      // Any free port for its /metrics: a worker of `make up` (or of another bench) may hold 9464.
      WEFT_METRICS_PORT: '0',
      ...workerEnv,
      ...env,
    },
    'worker polling task queue',
    nodeFlags,
  );
