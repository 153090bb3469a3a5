import { z } from 'zod';
import { EventType } from '../../events/event-types';
import type { Plan } from '../../orchestration/plan';
import { RecordType, decodeStrict, type RuntimeStore } from '../../store';
import { readRunLog } from '../../transcript';
import type { RoutingInput } from './step-types';
import { appendWhileTaskRuns, taskEvent } from './task-events';
import { planReviewRecord } from './run-records';
import { runEventKey, taskRunIdOr, taskRunOf } from './task-ref';

// A plan's review in rounds: the plan proposed, a person's feedback, the plan revised with it (a
// model step of the planner, recorded as routing's are), until a person approves or rejects it.
// Each round is a record in the task's run log and an event in its stream, one transaction, keyed
// by its round so a retry writes nothing new; the review is read back from those records.

export type PlanReviewEntry =
  | { kind: 'proposed'; round: number; plan: Plan; by: string }
  | { kind: 'feedback'; round: number; message: string; by: string }
  | { kind: 'approved' | 'rejected'; round: number; message: string; by: string };

export interface PlanReviewInput extends Pick<RoutingInput, 'taskId' | 'workflowId' | 'runId' | 'sessionId'> {
  entry: PlanReviewEntry;
  atMs: number;
}

const entrySchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('proposed'), round: z.number(), plan: z.unknown(), by: z.string() }),
  z.strictObject({ kind: z.literal('feedback'), round: z.number(), message: z.string(), by: z.string() }),
  z.strictObject({ kind: z.enum(['approved', 'rejected']), round: z.number(), message: z.string(), by: z.string() }),
]);

function reviewEvent(input: PlanReviewInput, runId: string) {
  const { entry } = input;
  const key = runEventKey(runId, `review/${entry.round}/${entry.kind}`);
  const at = new Date(input.atMs);
  const payload = { round: entry.round, version: entry.round + 1, by: entry.by };
  switch (entry.kind) {
    case 'proposed':
      return taskEvent(input.workflowId, key, EventType.ResearchPlanUpdated, at, {
        agentId: 'planner',
        message: `${entry.round === 0 ? 'plan for review' : `plan revised (round ${entry.round})`}: ${entry.plan.agents.length} agents`,
        payload: { ...payload, plan: entry.plan },
      });
    case 'feedback':
      return taskEvent(input.workflowId, key, EventType.ReviewUserFeedback, at, { agentId: 'user', message: entry.message, payload });
    default:
      return taskEvent(input.workflowId, key, EventType.StatusUpdate, at, {
        message: `plan ${entry.kind} by ${entry.by} after ${entry.round} rounds${entry.message ? `: ${entry.message}` : ''}`,
        payload,
      });
  }
}

/** What the planner is asked to revise a plan with. */
export const revisionPrompt = (query: string, tools: readonly string[], plan: Plan, feedback: string, errors?: string[]) =>
  [
    'A person reviewed the plan below for the task and sent feedback. Revise the plan to follow it.',
    'Answer with the whole revised plan as one JSON object only, in the same format:',
    '{"agents": [{"id": "short-id", "description": "what this agent does", "dependencies": ["ids it needs first"],',
    '  "tools": ["tool names"], "tier": "SMALL" | "MEDIUM" | "LARGE"}]}',
    `At most 10 agents, no dependency cycles. Available tools: ${tools.join(', ') || 'none'}.`,
    `Task: ${query}`,
    `Current plan: ${JSON.stringify(plan)}`,
    `Feedback: ${feedback}`,
    ...(errors ? ['Your previous answer was invalid:', ...errors.map((e) => `- ${e}`), 'Answer again with a corrected plan.'] : []),
  ].join('\n');

/** Records one round of the review with its event, unless it is recorded already (a retry). */
export async function recordPlanReview(store: RuntimeStore, input: PlanReviewInput): Promise<void> {
  const run = taskRunOf(taskRunIdOr(input.runId, input.workflowId));
  await store.appendRunRecord(planReviewRecord({ ...run, sessionId: input.sessionId }, new Date(input.atMs), input.entry), async (tx) => {
    await appendWhileTaskRuns(tx, reviewEvent(input, run.runId));
  });
}

/** The review's rounds as the task's run log holds them, oldest first. */
export async function readPlanReview(store: RuntimeStore, runId: string): Promise<Array<PlanReviewEntry & { at: Date }>> {
  const records = (await readRunLog(store, runId)).filter((record) => record.type === RecordType.PlanReview);
  return records.map((record) => ({ ...(decodeStrict(entrySchema, record.payload, RecordType.PlanReview) as PlanReviewEntry), at: record.timestamp }));
}
