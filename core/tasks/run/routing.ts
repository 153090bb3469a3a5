import type { Pool } from 'pg';
import { withTransaction } from '../../db/transaction';
import { appendTaskEvent } from '../../events/event-log';
import { EventType } from '../../events/event-types';
import { z } from 'zod';
import { complexityVerdictSchema, decideComplexity, heuristicComplexity, type ComplexityVerdict } from '../../orchestration/complexity';
import { checkPlan, parsePlanText, planSchema, readModelPlan, type ModelTier, type Plan } from '../../orchestration/plan';
import type { Reading } from '../../orchestration/model-json';
import { findRecentAnswer, recordTaskMode, recordTaskPlan } from '../task-index';
import { askOnce, type RecordedAsk } from './recorded-reply';
import { recordPlanReview, revisionPrompt, type PlanReviewInput } from './plan-review';
import type { RoutingInput } from './step-types';
import { taskEvent } from './task-events';
import { TaskAgent, runEventKey, taskRunIdOr } from './task-ref';
import type { StepContext, TaskWriteDeps } from './task-write-deps';

/** A plan under review, the round its revision is, and the person's feedback it follows. */
export interface PlanRevisionInput extends RoutingInput {
  round: number;
  plan: Plan;
  feedback: string;
}

const runIdOf = (input: RoutingInput) => taskRunIdOr(input.runId, input.workflowId);

export type RoutingResult = { verdict: ComplexityVerdict; cachedAnswer?: string };

export type DecompositionResult = ({ ok: true; plan: Plan } | { ok: false; errors: string[] }) & {
  /** How the planner's answer was read (absent for a plan a person wrote). */
  reading?: Reading;
};

/** The schemas plans and verdicts are asked for in, where a model's provider enforces one (supports_json_schema). */
const planFormat = { name: 'plan', schema: z.toJSONSchema(planSchema, { io: 'input' }) as Record<string, unknown> };
const verdictFormat = { name: 'complexity_verdict', schema: z.toJSONSchema(complexityVerdictSchema, { io: 'input' }) as Record<string, unknown> };

/** How long a user's completed answer serves the same question again (SIMPLE). */
const cachedAnswerHours = 24;

const decompositionPrompt = (query: string, tools: readonly string[], errors?: string[]) =>
  [
    'Split the task below into agent tasks. Answer with one JSON object only:',
    '{"agents": [{"id": "short-id", "description": "what this agent does", "dependencies": ["ids it needs first"],',
    '  "tools": ["tool names"], "tier": "SMALL" | "MEDIUM" | "LARGE"}]}',
    `At most 10 agents, no dependency cycles. Available tools: ${tools.join(', ') || 'none'}.`,
    ...(errors ? ['Your previous plan was invalid:', ...errors.map((e) => `- ${e}`), 'Answer again with a corrected plan.'] : []),
    `Task: ${query}`,
  ].join('\n');

/** What an event says of a model's answer that was not read as written: what was forgiven or wrong. */
function readingNote(what: 'plan' | 'verdict', reading: Reading | undefined): string {
  if (!reading || reading.outcome === 'clean') return '';
  const said = { lenient: 'read leniently', repaired: 'valid after a repair round', failed: 'unreadable, so the heuristic decided' }[reading.outcome];
  return ` (the model's ${what} was ${said}: ${reading.notes.join('; ')})`;
}

/** The routing decision in the task index and its announcement, in one transaction. */
const announceRouting = (pool: Pool, input: RoutingInput, verdict: ComplexityVerdict) =>
  withTransaction(pool, async (tx) => {
    await recordTaskMode(tx, input.taskId, verdict.recommended_mode);
    const message = `mode ${verdict.recommended_mode} (score ${verdict.complexity_score}, ${verdict.source}): ${verdict.reasoning}${readingNote('verdict', verdict.reading)}`;
    await appendTaskEvent(
      tx,
      taskEvent(input.workflowId, runEventKey(runIdOf(input), 'routing'), EventType.StatusUpdate, new Date(input.atMs), {
        message,
        payload: { ...verdict },
      }),
    );
  });

/** The plan a task will run in the task index and DECOMPOSITION_COMPLETED, in one transaction. */
const recordDecomposition = (pool: Pool, input: RoutingInput, plan: Plan, reading?: Reading) =>
  withTransaction(pool, async (tx) => {
    await recordTaskPlan(tx, input.taskId, 'COMPLEX', plan);
    const message = `${plan.agents.length} agents: ${plan.agents.map((a) => a.id).join(', ')}${readingNote('plan', reading)}`;
    await appendTaskEvent(
      tx,
      taskEvent(input.workflowId, runEventKey(runIdOf(input), 'plan'), EventType.DecompositionCompleted, new Date(input.atMs), {
        message,
        payload: { plan, ...(reading ? { reading } : {}) },
      }),
    );
  });

/** The routing decision and the plan: the mode a task runs in, and the agents of a COMPLEX one. */
export function taskRouting({ store, pool, gateway, tools, observer }: TaskWriteDeps) {
  const toolNames = (tenantId?: string) => tools.list(tenantId).map((t) => t.name);

  const ask = (input: RoutingInput, name: string, prompt: string, tier: ModelTier, step: StepContext, responseFormat: RecordedAsk['responseFormat']) =>
    askOnce(
      { store, gateway },
      {
        taskId: input.taskId,
        sessionId: input.sessionId,
        runId: runIdOf(input),
        agentId: TaskAgent.Router,
        name,
        prompt,
        tier,
        atMs: input.atMs,
        responseFormat,
      },
      step,
    );

  /** A plan from the planner, checked; asked once more with the errors when it is not valid. Its replies are recorded as `<name>-1`, `<name>-2`. */
  async function askForPlan(input: RoutingInput, name: string, promptWith: (errors?: string[]) => string, step: StepContext): Promise<DecompositionResult> {
    let errors: string[] | undefined;
    for (const attempt of [1, 2]) {
      const reply = await ask(input, `${name}-${attempt}`, promptWith(errors), 'MEDIUM', step, planFormat);
      const check = readModelPlan(reply.text, toolNames(input.tenantId));
      if (check.ok) {
        const reading: Reading = errors ? { outcome: 'repaired', notes: [...errors, ...check.reading.notes] } : check.reading;
        observer?.modelOutputRead('plan', reading.outcome);
        return { ...check, reading };
      }
      errors = check.errors;
    }
    observer?.modelOutputRead('plan', 'failed');
    return { ok: false, errors: errors!, reading: { outcome: 'failed', notes: errors! } };
  }

  const announce = (input: RoutingInput, verdict: ComplexityVerdict) => announceRouting(pool, input, verdict);
  const recordPlan = (input: RoutingInput, plan: Plan, reading?: Reading) => recordDecomposition(pool, input, plan, reading);

  return {
    /**
     * Picks SIMPLE, STANDARD or COMPLEX and records the choice: the same user's recent answer to the
     * same question makes it SIMPLE (cached); otherwise decideComplexity with a SMALL model.
     */
    async route(input: RoutingInput, step: StepContext): Promise<RoutingResult> {
      const heuristic = heuristicComplexity(input.query);
      if (heuristic.recommended_mode !== 'SIMPLE') {
        const cachedAnswer = await findRecentAnswer(pool, input, cachedAnswerHours);
        if (cachedAnswer !== undefined) {
          const verdict: ComplexityVerdict = { ...heuristic, recommended_mode: 'SIMPLE', reasoning: 'the same question was answered recently' };
          await announce(input, verdict);
          return { verdict, cachedAnswer };
        }
      }
      const verdict = await decideComplexity(heuristic, input.query, toolNames(input.tenantId), (prompt) =>
        ask(input, 'routing/analysis', prompt, 'SMALL', step, verdictFormat).then((reply) => reply.text),
      );
      if (verdict.reading) observer?.modelOutputRead('verdict', verdict.reading.outcome);
      await announce(input, verdict);
      return { verdict };
    },

    /** Asks for a plan, validates it, asks once more with the errors, and records the first valid one. */
    async decompose(input: RoutingInput, step: StepContext): Promise<DecompositionResult> {
      const check = await askForPlan(input, 'routing/plan', (errors) => decompositionPrompt(input.query, toolNames(input.tenantId), errors), step);
      if (check.ok) await recordPlan(input, check.plan, check.reading);
      return check;
    },

    /**
     * Revises a plan under review with a person's feedback: the planner asked (once more with the
     * errors if its plan is invalid), the revised plan recorded as the review's next round.
     */
    async revisePlan(input: PlanRevisionInput, step: StepContext): Promise<DecompositionResult> {
      const promptWith = (errors?: string[]) => revisionPrompt(input.query, toolNames(input.tenantId), input.plan, input.feedback, errors);
      const check = await askForPlan(input, `routing/review-${input.round}`, promptWith, step);
      if (check.ok) await recordPlanReview(store, { ...input, entry: { kind: 'proposed', round: input.round, plan: check.plan, by: 'planner' } });
      return check;
    },

    /** Validates a plan given as JSON text (an approver's modified action) like a model's plan. */
    checkPlanText: (text: string): DecompositionResult => checkPlan(parsePlanText(text), toolNames()),

    recordPlan,

    /** One round of a plan's review (the plan first proposed, a person's feedback, the decision). */
    recordPlanReview: (input: PlanReviewInput) => recordPlanReview(store, input),
  };
}
