import { Context } from '@temporalio/activity';
import type { ChatModel, TokenCounts } from '../core/llm/chat-model';
import type { RuntimeStore } from '../core/store';
import { buildMessagesFromRunLog, decodeTranscriptRecord, textOf, userText } from '../core/transcript';
import { failPermanentErrorsFast } from './failures';
import { whileHeartbeating } from './heartbeat';
import { ownerOf, seedRecord, stepReplyKey, stepReplyRecord } from './task-records';

export interface ModelStepInput {
  runId: string;
  sessionId: string;
  step: number;
  /** The user's query; seeds the transcript on the first step. */
  query: string;
  model?: string;
  /** Workflow time of the step, epoch milliseconds: the timestamp of its records. */
  stepAtMs: number;
}

export type ModelStepResult =
  | { sessionEnded: true }
  | { sessionEnded: false; text: string; model: string; finishReason: string; usage: TokenCounts };

export interface ModelStepDeps {
  store: RuntimeStore;
  chatModel: ChatModel;
  /** Model used when a step does not name one. */
  defaultModel: string;
}

export function createModelStepActivities({ store, chatModel, defaultModel }: ModelStepDeps) {
  return {
    /**
     * One LLM call. The transcript comes from the run log and the reply is appended to it under a
     * key fixed by the step, so a retried step whose reply was already stored returns that reply
     * and never calls the model twice.
     */
    async runModelStep(input: ModelStepInput): Promise<ModelStepResult> {
      return failPermanentErrorsFast(async () => {
        const owner = ownerOf(input.runId, input.sessionId);
        const at = new Date(input.stepAtMs);
        const stored = await store.findRunRecord(input.runId, stepReplyKey(owner, input.step));
        if (stored) {
          const reply = decodeTranscriptRecord(stored);
          return {
            sessionEnded: false,
            text: textOf(reply.messages[0]!),
            model: reply.model ?? '',
            finishReason: reply.finishReason ?? '',
            usage: reply.usage ?? { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
          };
        }
        // An ended session refuses new planner work; the workflow then records the cancellation.
        if (input.sessionId && (await store.loadSessionStatus(input.sessionId)) !== 'active') return { sessionEnded: true };
        // A retried first step proposes the same seed record: the store returns the original.
        if (input.step === 0) await store.appendRunRecord(seedRecord(owner, at, { messages: [userText(input.query)] }));
        const messages = await buildMessagesFromRunLog(store, input.runId);
        const completion = await whileHeartbeating(() =>
          chatModel.complete({ model: input.model || defaultModel, messages, signal: Context.current().cancellationSignal }),
        );
        await store.appendRunRecord(
          stepReplyRecord(owner, input.step, at, {
            messages: [completion.message],
            model: completion.model,
            finishReason: completion.finishReason,
            usage: completion.usage,
          }),
        );
        return {
          sessionEnded: false,
          text: textOf(completion.message),
          model: completion.model,
          finishReason: completion.finishReason,
          usage: completion.usage,
        };
      });
    },
  };
}
