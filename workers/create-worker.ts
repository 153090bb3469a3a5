import { NativeConnection, Worker, type WorkerOptions, type WorkerPlugin } from '@temporalio/worker';
import type { WeftActivities } from '../activities';

export interface WeftWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  activities: WeftActivities;
  shutdownGraceMs: number;
  /** A prebuilt bundle (tests share one); otherwise the workflows are bundled from source. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** Tracing's plugin: its workflow interceptors are bundled with the workflows, so a prebuilt bundle is not used. */
  tracing?: WorkerPlugin;
}

export const workflowsPath = require.resolve('../workflows');

export async function createWeftWorker(options: WeftWorkerOptions): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    activities: options.activities,
    ...(options.workflowBundle && !options.tracing ? { workflowBundle: options.workflowBundle } : { workflowsPath }),
    ...(options.tracing ? { plugins: [options.tracing] } : {}),
    // Without a grace time, SIGTERM cuts running activities off mid-write.
    shutdownGraceTime: options.shutdownGraceMs,
  });
}
