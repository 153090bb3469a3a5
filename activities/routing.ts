import type { Pool } from 'pg';
import { z } from 'zod';
import { withTransaction } from '../core/db/transaction';
import { appendTaskEvent } from '../core/events/event-log';
import { EventType } from '../core/events/event-types';
import type { ChatCompletion } from '../core/llm/chat-model';
import { isModelFailure } from '../core/llm/provider-errors';
import { complexityFromModel, heuristicComplexity, type ComplexityVerdict } from '../core/orchestration/complexity';
import { checkPlan, parsePlanText, type ModelTier, type Plan } from '../core/orchestration/plan';
import { encodePayload } from '../core/store';
import { recordTaskMode, recordTaskPlan, type NewTask } from '../core/tasks/task-index';
import { recordStepUsage } from '../core/tasks/task-usage';
import { userText } from '../core/transcript';
import type { ActivityDeps } from './deps';
import { failPermanentErrorsFast } from './failures';
import { whileHeartbeating } from './heartbeat';
import { taskEvent } from './task-events';
import { ownerOf } from './task-records';

export interface RoutingInput extends Pick<NewTask, 'taskId' | 'workflowId' | 'tenantId' | 'userId' | 'sessionId' | 'query'> {
  atMs: number;
}

export type RoutingResult = { verdict: ComplexityVerdict; cachedAnswer?: string };

export type DecompositionResult = { ok: true; plan: Plan } | { ok: false; errors: string[] };

const normalise = (query: string) => query.trim().replace(/\s+/g, ' ').toLowerCase();
const cacheWindowHours = 24;

/**
 * A completed answer to the same question by the same user of the same tenant, recently: SIMPLE's
 * cached answer. Answers are never shared across users.
 */
async function findCachedAnswer(pool: Pool, input: RoutingInput): Promise<string | undefined> {
  const rows = await pool.query<{ result: string }>(
    `SELECT result FROM tasks WHERE tenant_id = $1 AND user_id = $2 AND status = 'COMPLETED' AND task_id <> $4
       AND lower(regexp_replace(btrim(query), '\\s+', ' ', 'g')) = $3 AND completed_at > now() - make_interval(hours => $5)
     ORDER BY completed_at DESC LIMIT 1`,
    [input.tenantId, input.userId, normalise(input.query), input.taskId, cacheWindowHours],
  );
  return rows.rows[0]?.result;
}

type ModelReply = Omit<ChatCompletion, 'message' | 'finishReason'> & { text: string };

const storedModelReply = z.strictObject({ text: z.string(), model: z.string(), usage: z.strictObject({ promptTokens: z.number(), completionTokens: z.number(), totalTokens: z.number() }) });

const decompositionPrompt = (query: string, tools: readonly string[], errors?: string[]) =>
  [
    'Split the task below into agent tasks. Answer with one JSON object only:',
    '{"agents": [{"id": "short-id", "description": "what this agent does", "dependencies": ["ids it needs first"],',
    '  "tools": ["tool names"], "tier": "SMALL" | "MEDIUM" | "LARGE"}]}',
    `At most 10 agents, no dependency cycles. Available tools: ${tools.join(', ') || 'none'}.`,
    ...(errors ? ['Your previous plan was invalid:', ...errors.map((e) => `- ${e}`), 'Answer again with a corrected plan.'] : []),
    `Task: ${query}`,
  ].join('\n');

export function createRoutingActivities({ store, pool, gateway, tools }: ActivityDeps) {
  /**
   * A model call whose reply is kept in the task run's log under `key`: a retried activity reuses it
   * instead of asking again, and its usage is recorded once.
   */
  async function askOnce(input: RoutingInput, key: string, prompt: string, tier: ModelTier): Promise<ModelReply> {
    const owner = ownerOf(input.workflowId, input.sessionId);
    const recordKey = `${input.workflowId}/${key}`;
    const stored = await store.findRunRecord(input.workflowId, recordKey);
    if (stored) return storedModelReply.parse(JSON.parse(Buffer.from(stored.payload).toString('utf8')));
    const completion = await whileHeartbeating(() => gateway.complete({ tier, messages: [userText(prompt)] }));
    const text = completion.message.parts.flatMap((p) => (p.kind === 'text' ? [p.text] : [])).join('');
    const reply = { text, model: completion.model, usage: completion.usage };
    const { costUsd } = completion;
    const at = new Date(input.atMs);
    await store.appendRunRecord(
      { key: recordKey, runId: owner.runId, agentId: owner.agentId, ...(owner.sessionId ? { sessionId: owner.sessionId } : {}), type: 'model_reply', timestamp: at, payload: encodePayload(reply) },
      (tx) => recordStepUsage(tx, { taskId: input.taskId, stepKey: recordKey, agentId: 'router', model: reply.model, ...reply.usage, costUsd, at }),
    );
    return reply;
  }

  const toolNames = () => tools.list().map((t) => t.name);

  return {
    /** Picks SIMPLE, STANDARD or COMPLEX: a small model's verdict, or the heuristic when it gives none. */
    async analyzeComplexity(input: RoutingInput): Promise<RoutingResult> {
      return failPermanentErrorsFast(async () => {
        const at = new Date(input.atMs);
        let verdict = heuristicComplexity(input.query);
        if (verdict.recommended_mode !== 'SIMPLE') {
          const cachedAnswer = await findCachedAnswer(pool, input);
          if (cachedAnswer !== undefined) {
            verdict = { ...verdict, recommended_mode: 'SIMPLE', reasoning: 'the same question was answered recently' };
            await announce(input, at, verdict);
            return { verdict, cachedAnswer };
          }
          // When no model answers (refused, down, unparseable), the heuristic decides, as documented.
          const fromModel = await complexityFromModel(input.query, toolNames(), (prompt) =>
            askOnce(input, 'routing/analysis', prompt, 'SMALL').then(
              (reply) => reply.text,
              (err: unknown) => {
                if (isModelFailure(err)) return undefined;
                throw err;
              },
            ),
          );
          if (fromModel) verdict = fromModel;
        }
        await announce(input, at, verdict);
        return { verdict };
      });
    },

    /** Asks for a plan, validates it, asks once more with the errors, and reports them if it is still invalid. */
    async decomposeTask(input: RoutingInput): Promise<DecompositionResult> {
      return failPermanentErrorsFast(async () => {
        let errors: string[] | undefined;
        for (const attempt of [1, 2]) {
          const reply = await askOnce(input, `routing/plan-${attempt}`, decompositionPrompt(input.query, toolNames(), errors), 'MEDIUM');
          const check = checkPlan(parsePlanText(reply.text), toolNames());
          if (check.ok) {
            await recordPlan(input, check.plan);
            return check;
          }
          errors = check.errors;
        }
        return { ok: false, errors: errors! };
      });
    },

    /** Validates a plan given as JSON text (an approver's modified action) like a model's plan. */
    async checkPlanText(text: string): Promise<DecompositionResult> {
      return checkPlan(parsePlanText(text), toolNames());
    },

    /** Records the plan a task will run (a manual or approved one) and announces it. */
    async recordPlan(input: RoutingInput & { plan: Plan }): Promise<void> {
      return failPermanentErrorsFast(() => recordPlan(input, input.plan));
    },
  };

  async function recordPlan(input: RoutingInput, plan: Plan): Promise<void> {
    const at = new Date(input.atMs);
    await withTransaction(pool, async (tx) => {
      await recordTaskPlan(tx, input.taskId, 'COMPLEX', plan);
      await appendTaskEvent(
        tx,
        taskEvent(input.workflowId, 'plan', EventType.DecompositionCompleted, at, {
          message: `${plan.agents.length} agents: ${plan.agents.map((a) => a.id).join(', ')}`,
          payload: { plan },
        }),
      );
    });
  }

  /** Records the routing decision in the task index and announces it, together. */
  function announce(input: RoutingInput, at: Date, verdict: ComplexityVerdict): Promise<void> {
    return withTransaction(pool, async (tx) => {
      await recordTaskMode(tx, input.taskId, verdict.recommended_mode);
      await appendTaskEvent(
        tx,
        taskEvent(input.workflowId, 'routing', EventType.StatusUpdate, at, {
          message: `mode ${verdict.recommended_mode} (score ${verdict.complexity_score}, ${verdict.source}): ${verdict.reasoning}`,
          payload: { ...verdict },
        }),
      );
    });
  }
}
