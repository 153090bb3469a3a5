import type { Client as GrpcClient } from '@grpc/grpc-js';
import { createServiceClient, unaryCall, type ServiceClient } from '../protos/clients';
import type { GetTaskStatusResponse__Output } from '../protos/generated/shannon/orchestrator/GetTaskStatusResponse';

/** Where the CLI reaches Weft's gRPC API, and the key it sends. */
export interface ApiTarget {
  address: string;
  apiKey?: string;
}

/** Runs `work` with a client of one API service, closed afterwards. */
export async function withService<S extends 'orchestrator' | 'streaming', T>(target: ApiTarget, service: S, work: (client: ServiceClient<S>) => Promise<T>): Promise<T> {
  const client = createServiceClient(service, target.address, target.apiKey ? { apiKey: target.apiKey } : {});
  try {
    return await work(client);
  } finally {
    (client as GrpcClient).close();
  }
}

/** A task's status with its agents. */
export function taskStatus(target: ApiTarget, taskId: string): Promise<GetTaskStatusResponse__Output> {
  return withService(target, 'orchestrator', (client) => unaryCall(client, 'GetTaskStatus', { task_id: taskId, include_details: true }));
}
