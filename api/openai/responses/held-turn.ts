import { isDeepStrictEqual } from 'node:util';
import { listTaskEvents } from '../../../core/events/event-log';
import { EventType } from '../../../core/events/event-types';
import type { StoredResponse } from '../../../core/openai/response-index';
import { findTask } from '../../../core/tasks/task-index';
import { clientCallIdOf } from '../client-tool-request';
import type { OpenAiDeps } from '../completion-task';
import { invalid } from '../openai-errors';
import type { HeldCall, ResponseRequest } from './response-request';

// A client that keeps the conversation itself sends it whole with its function call outputs: the
// turn it holds (the user's message that began the task, the calls Weft sent) must be the task's,
// or the outputs would answer a conversation the task never had. The first item that differs is
// named.

const pageSize = 1000;

/** The calls of tools the client runs that the task announced, by the id the client saw. */
async function announcedCalls(deps: Pick<OpenAiDeps, 'pool'>, response: StoredResponse): Promise<Map<string, { name: unknown; arguments: unknown }>> {
  const calls = new Map<string, { name: unknown; arguments: unknown }>();
  for (let after = 0; ;) {
    const page = await listTaskEvents(deps.pool, response.workflowId, after, pageSize);
    for (const event of page) {
      const { client, tool, tool_call_id: id, arguments: args } = event.payload as Record<string, unknown>;
      if (event.type === EventType.ToolInvoked && client === true && typeof id === 'string')
        calls.set(clientCallIdOf(response.taskId, id), { name: tool, arguments: args ?? {} });
    }
    if (page.length < pageSize) return calls;
    after = page.at(-1)!.seq;
  }
}

const parsedArguments = (call: HeldCall): unknown => {
  try {
    return JSON.parse(call.arguments) as unknown;
  } catch {
    return undefined;
  }
};

/** Refuses (400, naming the item) a held turn that is not the task's. */
export async function checkHeldTurn(deps: Pick<OpenAiDeps, 'pool'>, response: StoredResponse, request: ResponseRequest): Promise<void> {
  const { heldTurn, instructions } = request;
  if (instructions !== undefined && response.request.instructions !== null && instructions !== response.request.instructions)
    throw invalid(`instructions differ from those the response '${response.responseId}' began with.`, 'instructions');
  if (!heldTurn) return;
  const task = await findTask(deps.pool, response.taskId);
  if (heldTurn.query && task && heldTurn.query.text !== task.query) {
    const { at } = heldTurn.query;
    throw invalid(`input[${at}]: the user message differs from the one that began the task of these function calls.`, `input[${at}].content`);
  }
  const announced = await announcedCalls(deps, response);
  for (const call of heldTurn.calls) {
    const sent = announced.get(call.callId);
    if (!sent) throw invalid(`input[${call.at}]: Weft sent no function call with call_id '${call.callId}' in this task.`, `input[${call.at}].call_id`);
    if (sent.name !== call.name)
      throw invalid(`input[${call.at}]: function call '${call.callId}' called ${String(sent.name)}, not ${call.name}.`, `input[${call.at}].name`);
    if (!isDeepStrictEqual(parsedArguments(call), sent.arguments))
      throw invalid(
        `input[${call.at}]: the arguments of function call '${call.callId}' differ from those Weft sent (${JSON.stringify(sent.arguments)}).`,
        `input[${call.at}].arguments`,
      );
  }
}
