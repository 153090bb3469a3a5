import { status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import type { StreamingServiceClient } from '../../protos/generated/shannon/orchestrator/StreamingService';
import type { TaskUpdate__Output } from '../../protos/generated/shannon/orchestrator/TaskUpdate';

/** Reads a task's stream until it ends, or until `stopAfter` updates (then disconnects). */
export function readStream(client: StreamingServiceClient, request: object, stopAfter = Infinity): Promise<TaskUpdate__Output[]> {
  return new Promise((resolve, reject) => {
    const updates: TaskUpdate__Output[] = [];
    const call = client.StreamTaskExecution(request);
    call.on('data', (update: TaskUpdate__Output) => {
      updates.push(update);
      if (updates.length === stopAfter) {
        call.cancel();
        resolve(updates);
      }
    });
    call.on('end', () => resolve(updates));
    call.on('error', (err: ServiceError) => (err.code === GrpcStatus.CANCELLED ? resolve(updates) : reject(err)));
  });
}

/** Live-only updates (LLM_PARTIAL) have seq 0 and no stream id: they are not in the log and are not resumed from. */
export const durable = (updates: TaskUpdate__Output[]) => updates.filter((u) => u.stream_id !== '');
