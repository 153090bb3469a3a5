import type { Client as GrpcClient } from '@grpc/grpc-js';
import { createServiceClient, unaryCall, type ServiceClient } from '../protos/clients';
import { structToJson } from '../api/grpc/struct';
import type { PendingApproval__Output } from '../protos/generated/shannon/orchestrator/PendingApproval';
import type { GetTaskStatusResponse__Output } from '../protos/generated/shannon/orchestrator/GetTaskStatusResponse';

/** Where the CLI reaches Weft's gRPC API, and the key it sends. */
export interface ApiTarget {
  address: string;
  apiKey?: string;
}

/** Runs `work` with a client of one API service, closed afterwards. */
export async function withService<S extends 'orchestrator' | 'streaming', T>(
  target: ApiTarget,
  service: S,
  work: (client: ServiceClient<S>) => Promise<T>,
): Promise<T> {
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

/** The approvals waiting for a decision, of the user and session given (every one the key may see when empty). */
export async function pendingApprovals(target: ApiTarget, filter: { user?: string; session?: string } = {}): Promise<PendingApproval__Output[]> {
  const request = { user_id: filter.user ?? '', session_id: filter.session ?? '' };
  return (await withService(target, 'orchestrator', (client) => unaryCall(client, 'GetPendingApprovals', request))).approvals;
}

/** The task an approval belongs to: its own workflow's, or (an agent's approval) the one its metadata names. */
export const taskOfApproval = (approval: PendingApproval__Output): string => String(structToJson(approval.metadata).task_id || approval.workflow_id);
