import { appendTaskEvent } from '../../events/event-log';
import { EventType } from '../../events/event-types';
import type { ToolOutcome } from '../../tools/tool';
import { recordStepUsage } from '../task-usage';
import type { ToolCallRequest } from './model-step';
import { decodeToolResult, toolResultKey, toolResultRecord } from './run-records';
import { appendEvents, taskEvent } from './task-events';
import { TASK_RUN_AGENT_ID, type TaskRef } from './task-ref';
import type { StepContext, TaskRunDeps } from './task-run-deps';

export interface ToolCallInput extends Omit<TaskRef, 'userId'> {
  /** The caller whose task this is (absent in tasks started before it was passed on). */
  userId?: string;
  /** The task's workflow: its event stream. */
  workflowId: string;
  /** A lower memory cap for this task's sandboxed programs. */
  sandboxMemoryMb?: number;
  /** The run the call belongs to: the task's own run, or an agent's child run. */
  runId: string;
  /** The store's agent of that run; the task's own run when absent. */
  runAgentId?: string;
  /** The task's agent that made the call. */
  agentId: string;
  call: ToolCallRequest;
  atMs: number;
}

// JSON.stringify gives undefined for undefined (a tool that returns nothing).
const asText = (value: unknown) => (typeof value === 'string' ? value : (JSON.stringify(value) ?? ''));

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

const noTokens = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };

/** One tool call of an agent: announced, run, and its outcome stored with its event and its cost. */
export function toolSteps({ store, pool, tools }: TaskRunDeps) {
  /**
   * Idempotent by its tool-call id: the outcome is stored in the run log under that id, and a retry
   * after it was stored returns it without running the tool again.
   */
  async function runToolCall(input: ToolCallInput, step: StepContext): Promise<ToolOutcome> {
    const owner = { runId: input.runId, runAgentId: input.runAgentId ?? TASK_RUN_AGENT_ID, sessionId: input.sessionId };
    const at = new Date(input.atMs);
    const stored = await store.findRunRecord(input.runId, toolResultKey(owner, input.call.id));
    if (stored) return decodeToolResult(stored);

    const eventKey = `tool/${input.runId}/${input.call.id}`;
    const { name, arguments: args } = input.call;
    await appendEvents(pool, [
      taskEvent(input.workflowId, `${eventKey}/invoked`, EventType.ToolInvoked, at, {
        agentId: input.agentId,
        message: `calling ${name}`,
        payload: { tool: name, tool_call_id: input.call.id, arguments: args },
      }),
    ]);
    const startedAt = performance.now();
    const outcome = await step.keepAlive(() =>
      tools.execute(name, args, {
        tenantId: input.tenantId,
        userId: input.userId ?? '',
        roles: input.roles ?? [],
        ...(input.sandboxMemoryMb ? { memoryLimitMb: input.sandboxMemoryMb } : {}),
        sessionId: input.sessionId,
        taskId: input.taskId,
        ...(step.signal ? { signal: step.signal } : {}),
      }),
    );
    const durationMs = Math.round(performance.now() - startedAt);
    const record = toolResultRecord(owner, input.call, at, outcome);
    // A tool's price per use counts against the task's cost limit, like tokens do; only a call that
    // succeeded is charged.
    const costUsd = outcome.ok ? (tools.get(name)?.costPerUse ?? 0) : 0;
    await store.appendRunRecord(record, async (tx) => {
      await appendTaskEvent(
        tx,
        taskEvent(input.workflowId, `${eventKey}/observed`, EventType.ToolObservation, at, {
          agentId: input.agentId,
          message: outcome.ok ? summary(outcome.content) : `${outcome.error.category} error: ${outcome.error.message}`,
          payload: { tool: name, tool_call_id: input.call.id, ...observation(outcome, durationMs), cost_usd: costUsd },
        }),
      );
      if (costUsd > 0) {
        await recordStepUsage(tx, { taskId: input.taskId, stepKey: record.key, agentId: input.agentId, model: `tool:${name}`, ...noTokens, costUsd, at });
      }
    });
    return outcome;
  }

  return { runToolCall };
}
