import { chatCompletionBody, completionAnswer, completionBody, modelAnswer, modelsAnswer } from './openai-schemas';
import type { FastifyReply } from 'fastify';
import type { OpenAiModel } from '../../core/openai/model-catalog';
import { followAnswer, type CompletionOutcome } from './completion-answer';
import { chatCompletionRequest, completionRequest, type CompletionRequest } from './completion-request';
import {
  completionObject,
  finalChunk,
  textChunk,
  toolCallsChunk,
  toolCallsObject,
  usageChunk,
  type CompletionKind,
  type CompletionShape,
} from './completion-shapes';
import { continuedCompletion } from './tool-results';
import { prepareCompletionTask, type OpenAiDeps } from './completion-task';
import { modelNotFound, openAiErrorOf, type OpenAiErrorBody } from './openai-errors';
import { openEventStream, whileConnected, type OpenAiHandler, openAiRoute, type OpenAiRoute } from './openai-route';
import { responseRoutes } from './responses/response-routes';

// OpenAI's routes on the REST port (/v1/models, /v1/chat/completions, /v1/completions), in
// OpenAI's wire format, so any OpenAI client runs Weft tasks by changing its base URL and key.

const modelObject = (model: OpenAiModel, created: Date) => ({ id: model.id, object: 'model', created: Math.floor(created.getTime() / 1000), owned_by: 'weft' });

/** The task's outcome as OpenAI's error when it did not complete. */
function failureOf(outcome: CompletionOutcome): { httpStatus: number; body: OpenAiErrorBody } | undefined {
  if (outcome.status === 'COMPLETED') return undefined;
  const cancelled = outcome.status === 'CANCELLED';
  const message = `the task ${cancelled ? 'was cancelled' : `ended ${outcome.status}`}${outcome.errorMessage ? `: ${outcome.errorMessage}` : ''}`;
  return {
    httpStatus: cancelled ? 409 : 502,
    body: { error: { message, type: 'server_error', param: null, code: cancelled ? 'task_cancelled' : 'task_failed' } },
  };
}

function shapeHeaders({ task }: CompletionShape): Record<string, string> {
  return { 'x-task-id': task.taskId, 'x-workflow-id': task.workflowId, ...(task.sessionId ? { 'x-session-id': task.sessionId } : {}) };
}

async function answerWhole(deps: OpenAiDeps, shape: CompletionShape, reply: FastifyReply) {
  for await (const piece of followAnswer(deps, shape.task, whileConnected(reply), false, shape.task.after)) {
    if (piece.kind === 'tool_calls') return reply.headers(shapeHeaders(shape)).send(toolCallsObject(shape, piece.calls, piece.text, piece.outcome));
    if (piece.kind !== 'end') continue;
    const failure = failureOf(piece.outcome);
    return reply
      .code(failure?.httpStatus ?? 200)
      .headers(shapeHeaders(shape))
      .send(failure?.body ?? completionObject(shape, piece.outcome));
  }
  return reply; // the client left: nobody to answer
}

/** Server-sent chunks once the task has started (a refused start is an HTTP error), then `[DONE]`. */
async function answerStreaming(deps: OpenAiDeps, shape: CompletionShape, reply: FastifyReply) {
  const pieces = followAnswer(deps, shape.task, whileConnected(reply), true, shape.task.after);
  await pieces.next(); // started
  const { send, end } = openEventStream(reply, shapeHeaders(shape));
  let first = true;
  try {
    for await (const piece of pieces) {
      if (piece.kind === 'text') {
        send(textChunk(shape, piece.text, first));
        first = false;
      } else if (piece.kind === 'tool_calls') {
        if (first) send(textChunk(shape, '', true));
        send(toolCallsChunk(shape, piece.calls));
        send(finalChunk(shape, 'tool_calls'));
        if (shape.request.includeUsage) send(usageChunk(shape, piece.outcome));
        send('[DONE]');
      } else if (piece.kind === 'end') {
        const failure = failureOf(piece.outcome);
        if (failure) send(failure.body);
        else {
          if (first && shape.kind === 'chat') send(textChunk(shape, '', true));
          send(finalChunk(shape));
          if (shape.request.includeUsage) send(usageChunk(shape, piece.outcome));
        }
        send('[DONE]');
      }
    }
  } catch (err) {
    send(openAiErrorOf(err).body);
  }
  end();
}

function completionHandler(kind: CompletionKind, parse: (body: unknown, deps: OpenAiDeps) => CompletionRequest): OpenAiHandler {
  return async ({ request, principal }, reply, deps) => {
    const parsed = parse(request.body, deps);
    const task = parsed.toolResults
      ? await continuedCompletion(deps, principal, parsed.toolResults)
      : await prepareCompletionTask(deps, { principal, headers: request.headers }, parsed);
    const shape: CompletionShape = { kind, request: parsed, task, created: Math.floor(Date.now() / 1000) };
    return parsed.stream ? answerStreaming(deps, shape, reply) : answerWhole(deps, shape, reply);
  };
}

export const openAiRoutes: readonly OpenAiRoute[] = [
  openAiRoute({
    method: 'GET',
    path: '/v1/models',
    answer: modelsAnswer,
    summary: 'The models an OpenAI client can name (openai-models.yaml): each a shape of Weft task',
    handle: async (_call, _reply, deps) => {
      return { object: 'list', data: deps.models.list().map((m) => modelObject(m, deps.models.loadedAt)) };
    },
  }),
  openAiRoute({
    method: 'GET',
    path: '/v1/models/:model',
    answer: modelAnswer,
    summary: 'One model, by id or alias; X-Model-Description says what kind of task it runs',
    handle: async ({ request }, reply, deps) => {
      const name = request.params.model ?? '';
      const model = name ? deps.models.find(name) : undefined;
      if (!model) throw modelNotFound(name);
      return reply.header('x-model-description', model.description).send({ ...modelObject(model, deps.models.loadedAt), id: name });
    },
  }),
  openAiRoute({
    method: 'POST',
    path: '/v1/chat/completions',
    body: chatCompletionBody,
    answer: completionAnswer,
    summary: "OpenAI's chat completion as a Weft task (stream with stream: true); the id names the task",
    handle: completionHandler('chat', (body, deps) => chatCompletionRequest(body, deps.models)),
  }),
  openAiRoute({
    method: 'POST',
    path: '/v1/completions',
    body: completionBody,
    answer: completionAnswer,
    summary: "OpenAI's (legacy) text completion of a prompt as a Weft task",
    handle: completionHandler('text', (body, deps) => completionRequest(body, deps.models)),
  }),
  ...responseRoutes,
];
