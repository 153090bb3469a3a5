import { condition, setHandler } from '@temporalio/workflow';
import type { ClientTool } from '../core/tasks/run/step-types';
import type { ToolCallRequest } from '../core/tasks/run/step-types';
import type { ToolCallInput } from '../core/tasks/run/tool-step';
import { toolActivities } from './activity-stubs';
import { clientToolResultsUpdate, handlerDescriptions, type ClientToolResults } from './messages';

// Calls of the tools a task's OpenAI client declares: announced, then the task waits for the
// client's results (the clientToolResults Update, sent by the chat completion that carries them),
// which are recorded as any tool's outcome is. The wait is the workflow's, so it outlives workers.

const { announceClientToolCalls, recordClientToolResult } = toolActivities;

export interface ClientToolExchange {
  tools: ClientTool[];
  /** Takes results for these calls from now on: before they are announced, as a client may answer the moment it sees them. */
  expect(ids: string[]): void;
  /** The outputs of the calls, once the client has sent them all; undefined after `timeoutMs`. */
  results(ids: string[], timeoutMs: number): Promise<Map<string, string> | undefined>;
}

function refusedResults(sent: ClientToolResults, waitingFor: ReadonlySet<string>): void {
  if (!Array.isArray(sent?.results) || sent.results.length === 0) throw new Error('results must be a non-empty list of {toolCallId, output}');
  for (const result of sent.results) {
    if (typeof result?.output !== 'string') throw new Error(`the output of ${String(result?.toolCallId)} must be a string`);
    if (!waitingFor.has(result.toolCallId)) throw new Error(`the task is not waiting for the result of tool call ${String(result.toolCallId)}`);
  }
}

/** The exchange of a task whose client declared `tools`: its Update handler is set once, here. */
export function clientToolExchange(tools: ClientTool[]): ClientToolExchange {
  let waitingFor = new Set<string>();
  const outputs = new Map<string, string>();
  setHandler(
    clientToolResultsUpdate,
    (sent) => {
      for (const { toolCallId, output } of sent.results) outputs.set(toolCallId, output);
      return { accepted: true } as const;
    },
    { validator: (sent) => refusedResults(sent, waitingFor), description: handlerDescriptions.clientToolResults },
  );
  return {
    tools,
    expect(ids) {
      waitingFor = new Set(ids.filter((id) => !outputs.has(id)));
    },
    async results(ids, timeoutMs) {
      const all = await condition(() => ids.every((id) => outputs.has(id)), timeoutMs);
      waitingFor = new Set();
      return all ? new Map(ids.map((id) => [id, outputs.get(id)!])) : undefined;
    },
  };
}

export const isClientToolCall = (exchange: ClientToolExchange | undefined, call: ToolCallRequest) =>
  exchange?.tools.some((tool) => tool.name === call.name) ?? false;

/** Announces the calls, waits for the client's results and records them; false when they did not come in time. */
export async function runClientToolCalls(
  exchange: ClientToolExchange,
  calls: ToolCallRequest[],
  inputOf: (call: ToolCallRequest) => ToolCallInput,
  timeoutMs: number,
): Promise<boolean> {
  const { call: _first, ...common } = inputOf(calls[0]!);
  const ids = calls.map((call) => call.id);
  exchange.expect(ids);
  await announceClientToolCalls({ ...common, calls });
  const outputs = await exchange.results(ids, timeoutMs);
  if (!outputs) return false;
  for (const call of calls) await recordClientToolResult({ ...inputOf(call), output: outputs.get(call.id)! });
  return true;
}
