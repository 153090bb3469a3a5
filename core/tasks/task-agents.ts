import type { Queryable } from '../db/transaction';
import { appendCallOf, type NewTaskEvent } from '../events/event-log';
import type { TaskStatus } from './task-status';

// One row per agent of a task, written in the transactions of its child run's start and end, listed
// in the order of the task's plan.

export interface AgentRecord {
  agentId: string;
  runId: string;
  status: TaskStatus;
  result: string;
  error: string;
  usage: { totalTokens: number; promptTokens: number; completionTokens: number; costUsd: number };
}

/**
 * The agent's row, once per run (a reset's run takes the agent over, running again), and its
 * AGENT_STARTED event, appended by the same statement when it wrote the row.
 */
export async function recordAgentStarted(tx: Queryable, taskId: string, agentId: string, runId: string, at: Date, started: NewTaskEvent): Promise<void> {
  const append = appendCallOf(started, 5);
  await tx.query(
    `WITH written AS (
       INSERT INTO task_agents (task_id, agent_id, run_id, status, started_at) VALUES ($1, $2, $3, 'RUNNING', $4)
       ON CONFLICT (task_id, agent_id) DO UPDATE SET run_id = EXCLUDED.run_id, status = 'RUNNING', started_at = EXCLUDED.started_at, result = '', error = '', completed_at = NULL
         WHERE task_agents.run_id <> EXCLUDED.run_id
       RETURNING 1
     )
     SELECT ${append.call} FROM written`,
    [taskId, agentId, runId, at, ...append.params],
  );
}

export async function recordAgentOutcome(
  tx: Queryable,
  taskId: string,
  agentId: string,
  outcome: { status: TaskStatus; result: string; error: string; at: Date },
): Promise<void> {
  await tx.query('UPDATE task_agents SET status = $3, result = $4, error = $5, completed_at = $6 WHERE task_id = $1 AND agent_id = $2', [
    taskId,
    agentId,
    outcome.status,
    outcome.result,
    outcome.error,
    outcome.at,
  ]);
}

/** The outcome of an agent still RUNNING, and its `finished` event, appended by the same statement when it was. */
export async function recordRunningAgentOutcome(
  tx: Queryable,
  taskId: string,
  agentId: string,
  outcome: { status: TaskStatus; result: string; error: string; at: Date },
  finished: NewTaskEvent,
): Promise<void> {
  const append = appendCallOf(finished, 7);
  await tx.query(
    `WITH ended AS (
       UPDATE task_agents SET status = $3, result = $4, error = $5, completed_at = $6 WHERE task_id = $1 AND agent_id = $2 AND status = 'RUNNING'
       RETURNING 1
     )
     SELECT ${append.call} FROM ended`,
    [taskId, agentId, outcome.status, outcome.result, outcome.error, outcome.at, ...append.params],
  );
}

export async function listTaskAgents(db: Queryable, taskId: string): Promise<AgentRecord[]> {
  const rows = await db.query<{
    agent_id: string;
    run_id: string;
    status: TaskStatus;
    result: string;
    error: string;
    prompt_tokens: string;
    completion_tokens: string;
    total_tokens: string;
    cost_usd: number;
  }>(
    `SELECT a.agent_id, a.run_id, a.status, a.result, a.error,
            coalesce(sum(u.prompt_tokens), 0) AS prompt_tokens, coalesce(sum(u.completion_tokens), 0) AS completion_tokens,
            coalesce(sum(u.total_tokens), 0) AS total_tokens, coalesce(sum(u.cost_usd), 0)::float8 AS cost_usd
     FROM task_agents a
     JOIN tasks t ON t.task_id = a.task_id
     LEFT JOIN task_usage u ON u.task_id = a.task_id AND u.agent_id = a.agent_id
     LEFT JOIN LATERAL (SELECT e.position FROM jsonb_array_elements(t.plan->'agents') WITH ORDINALITY AS e(agent, position)
                        WHERE e.agent->>'id' = a.agent_id) p ON true
     WHERE a.task_id = $1 GROUP BY a.task_id, a.agent_id, p.position
     ORDER BY p.position NULLS LAST, a.agent_id`,
    [taskId],
  );
  return rows.rows.map((row) => ({
    agentId: row.agent_id,
    runId: row.run_id,
    status: row.status,
    result: row.result,
    error: row.error,
    usage: {
      promptTokens: Number(row.prompt_tokens),
      completionTokens: Number(row.completion_tokens),
      totalTokens: Number(row.total_tokens),
      costUsd: row.cost_usd,
    },
  }));
}
