import type { TaskSubmission } from '../tasks/task-submission';
import type { SubmitTaskRequest__Output } from '../../protos/generated/shannon/orchestrator/SubmitTaskRequest';
import { modelTierOf } from './model-tiers';
import { structToJson } from './struct';

// SubmitTask's request (and AgentService's, which has the same metadata and context) as the
// submission every door gives: the proto's metadata, context Struct and manual decomposition read
// out here, at the gRPC door, so nothing below it reads protos.

type SubmitFields = Pick<SubmitTaskRequest__Output, 'metadata' | 'query' | 'context'> &
  Partial<Pick<SubmitTaskRequest__Output, 'auto_decompose' | 'manual_decomposition' | 'require_approval'>>;

export function taskSubmissionOf(request: SubmitFields): TaskSubmission {
  const { metadata } = request;
  const agents = request.manual_decomposition?.agent_tasks ?? [];
  return {
    query: request.query,
    ...(metadata
      ? {
          userId: metadata.user_id,
          tenantId: metadata.tenant_id,
          sessionId: metadata.session_id,
          tokenBudget: metadata.token_budget,
          maxAgents: metadata.max_agents,
        }
      : {}),
    context: structToJson(request.context),
    autoDecompose: request.auto_decompose ?? false,
    requireApproval: request.require_approval ?? false,
    ...(agents.length > 0
      ? {
          plannedAgents: agents.map((task) => ({
            id: task.agent_id,
            description: task.description,
            dependencies: task.dependencies,
            tools: task.required_tools,
            tier: modelTierOf(task.model_tier),
          })),
        }
      : {}),
  };
}
