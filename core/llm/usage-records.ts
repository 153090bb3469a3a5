import type { Queryable } from '../db/transaction';
import type { TokenCounts } from './chat-model';

// What LLMService calls spent, attributed to the caller's tenant and to the user, session and task
// its request names. Task steps record theirs in task_usage instead (core/tasks/task-usage.ts).

export interface GatewayUsage extends TokenCounts {
  tenantId: string;
  userId: string;
  sessionId: string;
  taskId: string;
  model: string;
  provider: string;
  costUsd: number;
  cacheHit: boolean;
  at: Date;
}

export async function recordGatewayUsage(db: Queryable, usage: GatewayUsage): Promise<void> {
  await db.query(
    `INSERT INTO llm_usage (tenant_id, user_id, session_id, task_id, model, provider, prompt_tokens, completion_tokens, total_tokens, cost_usd, cache_hit, recorded_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
    [usage.tenantId, usage.userId, usage.sessionId, usage.taskId, usage.model, usage.provider, usage.promptTokens, usage.completionTokens, usage.totalTokens, usage.costUsd, usage.cacheHit, usage.at],
  );
}
