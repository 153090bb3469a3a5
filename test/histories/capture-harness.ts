import { Client, Connection } from '@temporalio/client';
import type { Pool } from 'pg';
import { createPool } from '../../core/db/database';
import { createRuntimeStore } from '../../core/store';
import { ScriptedModelServer } from '../model-server/scripted-model-server';
import '../setup/quiet-logs';
import { startTestServices } from '../setup/test-services';
import { startTestWorker, type RunningWorker } from '../support/stack';

// What a capture script of one workflow path runs on: fresh test services, a scripted model, and
// (unless the script brings its own) a worker on the path's task queue. Cleaned up whatever happens.

export interface CaptureContext {
  model: ScriptedModelServer;
  pool: Pool;
  temporal: Client;
  taskQueue: string;
}

export const until = async (condition: () => boolean | Promise<boolean>) => {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 50));
};

async function capture(taskQueue: string, scenario: (context: CaptureContext) => Promise<void>, withWorker: boolean): Promise<void> {
  const services = await startTestServices();
  const model = new ScriptedModelServer();
  await model.start();
  const pool = createPool(process.env.DATABASE_URL!);
  const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  let worker: RunningWorker | undefined;
  try {
    if (withWorker) worker = await startTestWorker({ taskQueue, pool, store: createRuntimeStore(pool), modelBaseURL: model.baseURL });
    await scenario({ model, pool, temporal: new Client({ connection }), taskQueue });
  } finally {
    await worker?.stop();
    await connection.close();
    await pool.end();
    await model.stop();
    await services.stop();
  }
}

/** Runs a capture script's scenario; `withWorker: false` when the scenario starts (and kills) its own. */
export function captureGolden(taskQueue: string, scenario: (context: CaptureContext) => Promise<void>, options: { withWorker?: boolean } = {}): void {
  capture(taskQueue, scenario, options.withWorker ?? true).catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
