import { Context } from '@temporalio/activity';
import { appendTaskEvent } from '../core/events/event-log';
import { EventType } from '../core/events/event-types';
import { recordStepUsage } from '../core/tasks/task-usage';
import type { ToolOutcome } from '../core/tools/tool';
import type { ActivityDeps } from './deps';
import { failPermanentErrorsFast } from './failures';
import { whileHeartbeating } from './heartbeat';
import { appendEvents, taskEvent } from './task-events';
import { ownerOf, toolResultKey, toolResultRecord } from './task-records';
import type { ToolCallRequest } from './model-step';

export interface ToolCallInput {
  taskId: string;
  workflowId: string;
  tenantId: string;
  /** The caller whose task this is (absent in tasks started before it was passed on). */
  userId?: string;
  roles?: string[];
  /** A lower memory cap for this task's sandboxed programs. */
  sandboxMemoryMb?: number;
  runId: string;
  runAgentId?: string;
  sessionId: string;
  agentId: string;
  call: ToolCallRequest;
  atMs: number;
}

const asText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

const summary = (value: unknown) => {
  const text = asText(value);
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
};

/** Outputs up to this size travel whole in the event (AgentService reports them); larger ones as a summary. */
const maxEventOutputChars = 64 * 1024;

function observation(outcome: ToolOutcome, durationMs: number): Record<string, unknown> {
  if (!outcome.ok) return { ok: false, error: outcome.error, duration_ms: durationMs };
  const whole = asText(outcome.content).length <= maxEventOutputChars;
  return { ok: true, output: whole ? outcome.content : summary(outcome.content), output_truncated: !whole, duration_ms: durationMs };
}

export function createToolCallActivities({ store, pool, tools }: ActivityDeps) {
  return {
    /**
     * One tool call, idempotent by its tool-call id: the outcome is stored in the run log under that
     * id, and a retry after it was stored returns it without running the tool again.
     */
    async runToolCall(input: ToolCallInput): Promise<ToolOutcome> {
      return failPermanentErrorsFast(async () => {
        const owner = ownerOf(input.runId, input.sessionId, input.runAgentId);
        const at = new Date(input.atMs);
        const stored = await store.findRunRecord(input.runId, toolResultKey(owner, input.call.id));
        if (stored) return (JSON.parse(Buffer.from(stored.payload).toString('utf8')) as { outcome: ToolOutcome }).outcome;

        const eventKey = `tool/${input.runId}/${input.call.id}`;
        await appendEvents(pool, [
          taskEvent(input.workflowId, `${eventKey}/invoked`, EventType.ToolInvoked, at, {
            agentId: input.agentId,
            message: `calling ${input.call.name}`,
            payload: { tool: input.call.name, tool_call_id: input.call.id, arguments: input.call.arguments },
          }),
        ]);
        const startedAt = performance.now();
        const outcome = await whileHeartbeating(() =>
          tools.execute(input.call.name, input.call.arguments, {
            tenantId: input.tenantId,
            userId: input.userId ?? '',
            roles: input.roles ?? [],
            ...(input.sandboxMemoryMb ? { memoryLimitMb: input.sandboxMemoryMb } : {}),
            sessionId: input.sessionId,
            taskId: input.taskId,
            signal: Context.current().cancellationSignal,
          }),
        );
        const durationMs = Math.round(performance.now() - startedAt);
        const record = toolResultRecord(owner, input.call.id, at, { tool_use_id: input.call.id, name: input.call.name, outcome });
        // A tool's price per use counts against the task's cost limit, like tokens do; only a call
        // that succeeded is charged.
        const costUsd = outcome.ok ? (tools.get(input.call.name)?.costPerUse ?? 0) : 0;
        await store.appendRunRecord(record, async (tx) => {
          await appendTaskEvent(
            tx,
            taskEvent(input.workflowId, `${eventKey}/observed`, EventType.ToolObservation, at, {
              agentId: input.agentId,
              message: outcome.ok ? summary(outcome.content) : `${outcome.error.category} error: ${outcome.error.message}`,
              payload: { tool: input.call.name, tool_call_id: input.call.id, ...observation(outcome, durationMs), cost_usd: costUsd },
            }),
          );
          if (costUsd > 0) {
            const noTokens = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
            await recordStepUsage(tx, { taskId: input.taskId, stepKey: record.key, agentId: input.agentId, model: `tool:${input.call.name}`, ...noTokens, costUsd, at });
          }
        });
        return outcome;
      });
    },
  };
}
