import { appendTaskEvents } from '../../events/event-log';
import { EventType } from '../../events/event-types';
import type { ToolCallRequest } from './step-types';
import { recordOwnerOf, toolResultKey } from './run-records';
import { taskEvent } from './task-events';
import type { TaskWriteDeps } from './task-write-deps';
import { recordOutcome, type ToolCallInput } from './tool-step';

// Tools an OpenAI client declares (a chat completion's `tools`): offered to the model beside
// Weft's, but run by the client. A call of one is announced (TOOL_INVOKED, `client: true`) and the
// task waits, durably, for the client to send its result; the result is recorded as any tool's is,
// so the next model step gets it and a replay sees it.

export interface ClientToolCallsInput extends Omit<ToolCallInput, 'call'> {
  calls: ToolCallRequest[];
}

export interface ClientToolResultInput extends ToolCallInput {
  /** What the client's tool answered, as the client sent it. */
  output: string;
}

/** The calls' announcements, in one statement: the client learns of them all at once. */
export function clientToolSteps(deps: TaskWriteDeps) {
  return {
    async announceClientToolCalls(input: ClientToolCallsInput): Promise<void> {
      const at = new Date(input.atMs);
      await appendTaskEvents(
        deps.pool,
        input.calls.map((call, index) =>
          taskEvent(input.workflowId, `tool/${input.runId}/${call.id}/invoked`, EventType.ToolInvoked, at, {
            agentId: input.agentId,
            message: `waiting for the client to run ${call.name}`,
            payload: { tool: call.name, tool_call_id: call.id, arguments: call.arguments, client: true, index, of: input.calls.length },
          }),
        ),
      );
    },

    /** Stored once under the call's id, as a tool's outcome is; a retry finds it stored. */
    async recordClientToolResult(input: ClientToolResultInput): Promise<void> {
      const owner = recordOwnerOf(input);
      const stored = await deps.store.findRunRecord(input.runId, toolResultKey(owner, input.call.id));
      if (stored) return;
      await recordOutcome(deps, input, owner, { ok: true, content: input.output }, 0);
    },
  };
}
