import type { ModelTier } from '../../orchestration/plan';
import { userText, textOf } from '../../transcript';
import { recordStepUsage } from '../task-usage';
import { decodeModelReply, modelReplyKey, modelReplyRecord, type ModelReplyPayload } from './run-records';
import { taskRunOf } from './task-ref';
import type { StepContext, TaskWriteDeps } from './task-write-deps';

// One model call of a task outside any agent's transcript (routing, a memory note): its reply is
// kept in the task run's log under a name, with its usage, in one transaction, so a retry reuses
// the reply instead of asking again and its usage counts once.

export interface RecordedAsk {
  taskId: string;
  sessionId: string;
  /** The task's store run. */
  runId: string;
  /** The task's agent the usage is counted for. */
  agentId: string;
  /** The record's name in the run's log: 'routing/analysis', 'memory/note', ... */
  name: string;
  prompt: string;
  tier: ModelTier;
  atMs: number;
  /** The JSON schema the answer must follow, where the model's provider enforces one. */
  responseFormat?: { name: string; schema: Record<string, unknown> };
}

export async function askOnce({ store, gateway }: Pick<TaskWriteDeps, 'store' | 'gateway'>, ask: RecordedAsk, step: StepContext): Promise<ModelReplyPayload> {
  const owner = { ...taskRunOf(ask.runId), sessionId: ask.sessionId };
  const recordKey = modelReplyKey(owner, ask.name);
  const stored = await store.findRunRecord(owner.runId, recordKey);
  if (stored) return decodeModelReply(stored);
  const completion = await step.keepAlive(() =>
    gateway.complete({ tier: ask.tier, messages: [userText(ask.prompt)], ...(ask.responseFormat ? { responseFormat: ask.responseFormat } : {}) }),
  );
  const reply = { text: textOf(completion.message), model: completion.model, usage: completion.usage };
  const at = new Date(ask.atMs);
  await store.appendRunRecord(modelReplyRecord(owner, ask.name, at, reply), (tx) =>
    recordStepUsage(tx, { taskId: ask.taskId, stepKey: recordKey, agentId: ask.agentId, model: reply.model, ...reply.usage, costUsd: completion.costUsd, at }),
  );
  return reply;
}
