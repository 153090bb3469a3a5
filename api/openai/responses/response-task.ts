import { createHash } from 'node:crypto';
import type { Principal } from '../../../core/auth/api-keys';
import { continuationIdOf, findResponse, forgetResponse, responseIdOf, saveResponse, type StoredResponse } from '../../../core/openai/response-index';
import { addMessages } from '../../../core/sessions/history';
import { findTask } from '../../../core/tasks/task-index';
import { TaskStatus } from '../../../core/tasks/task-status';
import { taskWorkflowIdOf } from '../../../core/tasks/run/task-ref';
import { submittedTaskInput } from '../../tasks/task-start';
import { idempotencyKeyOf } from '../../http/credentials';
import { checkClientTools, openConversation, taskInputOf, taskShapeOf, type OpenAiDeps } from '../completion-task';
import { callOfClientId, type ToolResult } from '../client-tool-request';
import { checkHeldTurn } from './held-turn';
import { continuedCompletion } from '../tool-results';
import { OpenAiRequestError } from '../openai-errors';
import type { ResponseRequest } from './response-request';

// A response is a Weft task in a session of its own, or in the session of the response it follows
// (previous_response_id), whose history then holds the conversation. Its task records the text its
// models stream, so the response's stream can be resumed from any API process.

export const responseNotFound = (responseId: string) => new OpenAiRequestError(`No response found with id '${responseId}'.`, null, 404, 'not_found');

/** The caller's tenant's response, or 404 (another tenant's is as unknown as a missing one). */
export async function ownResponse(deps: Pick<OpenAiDeps, 'pool'>, principal: Principal, responseId: string): Promise<StoredResponse> {
  const response = await findResponse(deps.pool, principal.tenantId, responseId);
  if (!response) throw responseNotFound(responseId);
  return response;
}

const endedStatuses: ReadonlySet<string> = new Set([TaskStatus.Completed, TaskStatus.Failed, TaskStatus.Cancelled, TaskStatus.Timeout]);

/** The session a response continues: the previous response's, once that has ended (its answer is then in the history). */
async function continuedSession(deps: OpenAiDeps, principal: Principal, previousResponseId: string): Promise<string> {
  const previous = await findResponse(deps.pool, principal.tenantId, previousResponseId);
  if (!previous) throw new OpenAiRequestError(`Previous response with id '${previousResponseId}' not found.`, 'previous_response_id', 404, 'not_found');
  const task = await findTask(deps.pool, previous.taskId);
  if (!task || !endedStatuses.has(task.status))
    throw new OpenAiRequestError(`Previous response '${previousResponseId}' is still in progress: continue it once it has ended.`, 'previous_response_id');
  return previous.sessionId;
}

/** The conversation's earlier turns: a new session starts with them, a continued one gets them after its history. */
async function joinConversation(deps: OpenAiDeps, principal: Principal, request: ResponseRequest, taskId: string): Promise<string> {
  if (!request.previousResponseId) {
    const sessionId = `resp-${taskId}`;
    await openConversation(deps, principal, sessionId, request.history);
    return sessionId;
  }
  const sessionId = await continuedSession(deps, principal, request.previousResponseId);
  if (request.history.length > 0) {
    const now = new Date();
    const turns = request.history.map((turn, i) => ({ id: `${taskId}-input-${i}`, ...turn, tokensUsed: 0, metadata: {}, createdAt: now }));
    await addMessages(deps.pool, principal.tenantId, sessionId, turns, now);
  }
  return sessionId;
}

/** The response whose task the outputs go on with: the one named, or else the first of the task their call ids name. */
async function continuedResponse(deps: OpenAiDeps, principal: Principal, request: ResponseRequest & { toolOutputs: ToolResult[] }): Promise<StoredResponse> {
  if (request.previousResponseId) {
    const previous = await findResponse(deps.pool, principal.tenantId, request.previousResponseId);
    if (!previous)
      throw new OpenAiRequestError(`Previous response with id '${request.previousResponseId}' not found.`, 'previous_response_id', 404, 'not_found');
    return previous;
  }
  const callId = request.toolOutputs[0]!.toolCallId;
  const first = await findResponse(deps.pool, principal.tenantId, responseIdOf(callOfClientId(callId)!.taskId));
  if (!first) throw new OpenAiRequestError(`No function call with id '${callId}' is waiting for its output.`, 'input', 404, 'not_found');
  return first;
}

/**
 * A response that gives the outputs of the calls a waiting task made: kept, and its task sent them
 * (refused, 409, unless it waits for exactly these). It reads the task's log from there.
 */
export async function continueResponseTask(
  deps: OpenAiDeps,
  principal: Principal,
  request: ResponseRequest & { toolOutputs: ToolResult[] },
): Promise<StoredResponse> {
  const task = await continuedCompletion(deps, principal, request.toolOutputs);
  const previous = await continuedResponse(deps, principal, request);
  const afterSeq = task.after ?? 0;
  if (task.taskId !== previous.taskId)
    throw new OpenAiRequestError(`The function call outputs answer calls of another response than '${previous.responseId}'.`, 'input');
  if (!request.previousResponseId) await checkHeldTurn(deps, previous, request);
  const response = await saveResponse(deps.pool, {
    ...previous,
    responseId: continuationIdOf(task.taskId, afterSeq),
    model: request.modelName,
    request: {
      instructions: previous.request.instructions,
      previous_response_id: request.previousResponseId ?? null,
      background: request.background,
      metadata: request.metadata,
    },
    createdAt: new Date(),
    afterSeq,
  });
  try {
    await task.start();
  } catch (err) {
    // Refused (the task waits for other calls, or for none): the response never began.
    await forgetResponse(deps.pool, principal.tenantId, response.responseId);
    throw err;
  }
  return response;
}

/** Keeps the response and starts its task (an Idempotency-Key's retry finds both as first made). */
export async function startResponseTask(
  deps: OpenAiDeps,
  call: { principal: Principal; headers: Record<string, string | string[] | undefined> },
  request: ResponseRequest,
): Promise<StoredResponse> {
  const { principal } = call;
  const routed = submittedTaskInput(principal, idempotencyKeyOf(call.headers), { query: request.query }, deps.tasks.limits);
  const sessionId = await joinConversation(deps, principal, request, routed.taskId);
  const shape = taskShapeOf(deps, request);
  checkClientTools(deps, principal, request, shape);
  const base = taskInputOf({ ...routed, sessionId }, request, shape);
  const input = { ...base, settings: { ...base.settings, recordPartials: true } };
  const response = await saveResponse(deps.pool, {
    responseId: responseIdOf(input.taskId),
    tenantId: principal.tenantId,
    userId: input.userId,
    taskId: input.taskId,
    workflowId: taskWorkflowIdOf(input.taskId),
    sessionId,
    model: request.modelName,
    request: {
      instructions: request.instructions ?? null,
      previous_response_id: request.previousResponseId ?? null,
      background: request.background,
      metadata: request.metadata,
    },
    createdAt: new Date(),
    afterSeq: 0,
  });
  const fingerprint = `openai-responses:${request.model.id}:${createHash('sha256')
    .update(JSON.stringify([request.instructions ?? '', request.history, request.query, request.previousResponseId ?? '']))
    .digest('hex')}`;
  await deps.tasks.start(input, principal, fingerprint);
  return response;
}
