import type { ServiceError } from '@grpc/grpc-js';
import { callUnary } from '../../protos/clients';
import type { GetTaskStatusResponse__Output } from '../../protos/generated/shannon/orchestrator/GetTaskStatusResponse';
import type { OrchestratorServiceClient } from '../../protos/generated/shannon/orchestrator/OrchestratorService';
import type { SubmitTaskRequest } from '../../protos/generated/shannon/orchestrator/SubmitTaskRequest';
import type { SubmitTaskResponse__Output } from '../../protos/generated/shannon/orchestrator/SubmitTaskResponse';

export const submitTask = (client: OrchestratorServiceClient, request: SubmitTaskRequest) =>
  callUnary<SubmitTaskRequest, SubmitTaskResponse__Output>(client.SubmitTask, client, request);

export const getTaskStatus = (client: OrchestratorServiceClient, taskId: string) =>
  callUnary<{ task_id: string; include_details?: boolean }, GetTaskStatusResponse__Output>(client.GetTaskStatus, client, { task_id: taskId });

/** The gRPC error a call fails with (fails the test when the call succeeds). */
export async function grpcError(call: Promise<unknown>): Promise<ServiceError> {
  try {
    await call;
  } catch (err) {
    return err as ServiceError;
  }
  throw new Error('expected the call to fail');
}

/** Polls GetTaskStatus until the task leaves QUEUED/RUNNING. */
export async function waitForFinish(client: OrchestratorServiceClient, taskId: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await getTaskStatus(client, taskId);
    if (!['TASK_STATUS_QUEUED', 'TASK_STATUS_RUNNING'].includes(status.status)) return status;
    if (Date.now() > deadline) throw new Error(`task ${taskId} still ${status.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
