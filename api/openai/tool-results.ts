import type { Principal } from '../../core/auth/api-keys';
import { lastTaskEvent } from '../../core/events/event-log';
import { findTask } from '../../core/tasks/task-index';
import { TaskStatus } from '../../core/tasks/task-status';
import { TaskError } from '../tasks/task-errors';
import { callOfClientId, type ToolResult } from './client-tool-request';
import type { OpenAiDeps, PreparedCompletion } from './completion-task';
import { OpenAiRequestError } from './openai-errors';

// A chat completion that brings the results of the client's tools goes on with the task that
// called them: the results are sent to it (the service's clientToolResults Update, refused when the task is
// not waiting for them) and the answer is what the task does next.

/** The task the results are for, ready to go on: its answer is its events after the present last one. */
export async function continuedCompletion(deps: OpenAiDeps, principal: Principal, results: ToolResult[]): Promise<PreparedCompletion> {
  const calls = results.map((result) => ({ ...callOfClientId(result.toolCallId)!, output: result.output }));
  const taskId = calls[0]!.taskId;
  if (calls.some((call) => call.taskId !== taskId)) throw new OpenAiRequestError('The tool results answer the calls of more than one task.', 'messages');
  const task = await findTask(deps.pool, taskId);
  if (!task || task.tenantId !== principal.tenantId)
    throw new OpenAiRequestError(`No tool call with id '${results[0]!.toolCallId}' is waiting for its result.`, 'messages', 404, 'not_found');
  const refused = (reason: string) => new OpenAiRequestError(`The task cannot take these tool results: ${reason}.`, 'messages', 409, 'tool_results_refused');
  if (task.status !== TaskStatus.Running) throw refused(`it is ${task.status}`);
  const after = (await lastTaskEvent(deps.pool, task.workflowId))?.seq ?? 0;
  return {
    taskId,
    workflowId: task.workflowId,
    ...(task.sessionId ? { sessionId: task.sessionId } : {}),
    after,
    async start() {
      try {
        await deps.running.sendToolResults(
          task.workflowId,
          calls.map(({ callId, output }) => ({ toolCallId: callId, output })),
        );
      } catch (err) {
        if (err instanceof TaskError && err.kind === 'precondition_failed') throw refused(err.message);
        throw err;
      }
    },
  };
}
