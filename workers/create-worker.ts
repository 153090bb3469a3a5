import { NativeConnection, Worker, bundleWorkflowCode, type WorkerOptions, type WorkerPlugin } from '@temporalio/worker';
import type { WorkerActivities } from '../activities';
import type { WorkerCapacity } from '../core/capacity-settings';

export interface WeftWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  /** The activities, with the interceptor that applies each one's run context. */
  activities: WorkerActivities;
  shutdownGraceMs: number;
  /** Slots, cache and build (WEFT_WORKER_*); unset fields keep the SDK's defaults. */
  capacity?: WorkerCapacity;
  /** A prebuilt bundle (tests share one); otherwise the workflows are bundled from source. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** Tracing's plugin: its workflow interceptors are bundled with the workflows, so a prebuilt bundle is not used. */
  tracing?: WorkerPlugin;
}

export const workflowsPath = require.resolve('../workflows');

/** Bundled with the workflows wherever they run or replay: the run context's header (workflows/run-context.ts). */
export const workflowInterceptorModules = [require.resolve('../workflows/run-context')];

const quietBundler = { info() {}, warn() {}, debug() {}, trace() {}, log() {}, error: console.error };

/** The workflows and their interceptors, bundled as a worker runs them: the code a prebuilt bundle file holds. */
export async function bundleWorkflows(): Promise<string> {
  return (await bundleWorkflowCode({ workflowsPath, workflowInterceptorModules, logger: quietBundler })).code;
}

/**
 * With a version, the worker is one build of a Temporal worker deployment. A task's workflow, and
 * its agents, stay pinned to the build that started them (their histories replay on that code);
 * new tasks go to whichever build the deployment's current version names
 * (`temporal worker deployment set-current-version`).
 */
function versioningOf(capacity: WorkerCapacity): Pick<WorkerOptions, 'workerDeploymentOptions'> {
  if (!capacity.version) return {};
  return { workerDeploymentOptions: { useWorkerVersioning: true, version: capacity.version, defaultVersioningBehavior: 'PINNED' } };
}

export async function createWeftWorker(options: WeftWorkerOptions): Promise<Worker> {
  const capacity = options.capacity ?? {};
  const bundle = options.tracing ? undefined : options.workflowBundle;
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    activities: options.activities.activities,
    // A prebuilt bundle has the workflow interceptors in it already.
    ...(bundle ? { workflowBundle: bundle } : { workflowsPath }),
    interceptors: { activity: options.activities.interceptors, ...(bundle ? {} : { workflowModules: workflowInterceptorModules }) },
    ...(options.tracing ? { plugins: [options.tracing] } : {}),
    // Without a grace time, SIGTERM cuts running activities off mid-write.
    shutdownGraceTime: options.shutdownGraceMs,
    ...(capacity.activitySlots ? { maxConcurrentActivityTaskExecutions: capacity.activitySlots } : {}),
    ...(capacity.workflowTaskSlots ? { maxConcurrentWorkflowTaskExecutions: capacity.workflowTaskSlots } : {}),
    ...(capacity.cachedWorkflows !== undefined ? { maxCachedWorkflows: capacity.cachedWorkflows } : {}),
    ...versioningOf(capacity),
  });
}
