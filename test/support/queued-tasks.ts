import { randomUUID } from 'node:crypto';
import { ephemeralListen, startApiServer } from '../../api/server';
import { createOrchestratorClient } from '../../protos/clients';
import { submitTask } from './grpc';
import { startTestWorker, type TestStack } from './stack';

/**
 * A task submitted through an API of the stack whose task queue no worker polls: its workflow waits,
 * QUEUED, having recorded nothing, until `startWorker` starts a worker on that queue.
 */
export async function submitWithNoWorker(stack: TestStack, query: string) {
  const taskQueue = `no-worker-${randomUUID()}`;
  const idle = await startApiServer({ ...stack.apiDeps, taskQueue }, ephemeralListen());
  const client = createOrchestratorClient(`127.0.0.1:${idle.port}`, { apiKey: stack.apiKey });
  try {
    const submitted = await submitTask(client, { query });
    return { submitted, startWorker: () => startTestWorker({ taskQueue, pool: stack.pool, store: stack.store, modelBaseURL: stack.model.baseURL }) };
  } finally {
    client.close();
    await idle.shutdown();
  }
}
