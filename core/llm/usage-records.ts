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

const insertUsage = (db: Queryable, usage: GatewayUsage, settled: boolean) =>
  db.query<{ id: string }>(
    `INSERT INTO llm_usage (tenant_id, user_id, session_id, task_id, model, provider, prompt_tokens, completion_tokens, total_tokens, cost_usd, cache_hit, recorded_at, settled)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING id`,
    [
      usage.tenantId,
      usage.userId,
      usage.sessionId,
      usage.taskId,
      usage.model,
      usage.provider,
      usage.promptTokens,
      usage.completionTokens,
      usage.totalTokens,
      usage.costUsd,
      usage.cacheHit,
      usage.at,
      settled,
    ],
  );

export async function recordGatewayUsage(db: Queryable, usage: GatewayUsage): Promise<void> {
  await insertUsage(db, usage, true);
}

/**
 * Reserves a streamed call's usage before its first token goes out (the estimate counts if the
 * stream never settles); returns the reservation to settle.
 */
export async function reserveGatewayUsage(db: Queryable, estimate: GatewayUsage): Promise<string> {
  return (await insertUsage(db, estimate, false)).rows[0]!.id;
}

/** Replaces a reservation with what the call really spent. */
export async function settleGatewayUsage(
  db: Queryable,
  reservation: string,
  usage: Pick<GatewayUsage, 'model' | 'provider' | 'promptTokens' | 'completionTokens' | 'totalTokens' | 'costUsd'>,
): Promise<void> {
  await db.query(
    `UPDATE llm_usage SET model = $2, provider = $3, prompt_tokens = $4, completion_tokens = $5, total_tokens = $6, cost_usd = $7, settled = true WHERE id = $1`,
    [reservation, usage.model, usage.provider, usage.promptTokens, usage.completionTokens, usage.totalTokens, usage.costUsd],
  );
}
