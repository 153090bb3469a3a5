import { responseAnswer, responseBody, responseQuery } from '../openai-schemas';
import type { FastifyReply } from 'fastify';
import type { StoredResponse } from '../../../core/openai/response-index';
import type { OpenAiDeps } from '../completion-task';
import { invalid, openAiErrorOf } from '../openai-errors';
import { openEventStream, whileConnected, openAiRoute, type OpenAiRoute } from '../openai-route';
import { responseEvents, responseNow } from './response-events';
import { responseRequest } from './response-request';
import { continueResponseTask, ownResponse, startResponseTask } from './response-task';

// OpenAI's Responses API on Weft's durable tasks: a response (background or not) is a task that
// goes on when its client leaves or its API process dies, and its stream resumes on any API
// process after the last sequence number the client saw.

const responseHeaders = (response: StoredResponse) => ({
  'x-task-id': response.taskId,
  'x-workflow-id': response.workflowId,
  'x-session-id': response.sessionId,
});

/** The response's events after `startingAfter` as server-sent events, until its end or the client leaves. */
async function streamResponse(deps: OpenAiDeps, response: StoredResponse, startingAfter: number, reply: FastifyReply) {
  const signal = whileConnected(reply);
  const stream = openEventStream(reply, responseHeaders(response));
  try {
    for await (const event of responseEvents(deps, response, startingAfter, signal)) stream.send(event, event.type);
  } catch (err) {
    const { message, param, code } = openAiErrorOf(err).body.error;
    stream.send({ type: 'error', code, message, param }, 'error');
  }
  stream.end();
}

/** The response once it has ended (its last event carries it), or as it was when the client left. */
async function endedResponse(deps: OpenAiDeps, response: StoredResponse, signal: AbortSignal): Promise<unknown> {
  let latest: unknown;
  for await (const event of responseEvents(deps, response, -1, signal)) if ('response' in event) latest = event.response;
  return latest;
}

/** How long a cancel waits for the task to end before it answers. */
const cancelWaitMs = 10_000;

/** `starting_after` of a resumed stream: the last sequence number the client has. */
function startingAfterOf(query: Record<string, unknown>): number {
  const given = query.starting_after;
  if (given === undefined || given === '') return -1;
  const value = Number(given);
  if (!Number.isSafeInteger(value) || value < 0) throw invalid("Invalid 'starting_after': expected a sequence number (an integer from 0).", 'starting_after');
  return value;
}

function streamFlagOf(query: Record<string, unknown>): boolean {
  const { stream } = query;
  if (stream === undefined || stream === 'false') return false;
  if (stream === 'true') return true;
  throw invalid("Invalid 'stream': expected true or false.", 'stream');
}

export const responseRoutes: readonly OpenAiRoute[] = [
  openAiRoute({
    method: 'POST',
    path: '/v1/responses',
    body: responseBody,
    answer: responseAnswer,
    summary: "OpenAI's response as a durable Weft task (stream, background, previous_response_id); its id names the task",
    handle: async ({ request, principal }, reply, deps) => {
      const parsed = responseRequest(request.body, deps.models);
      const { toolOutputs } = parsed;
      const response = toolOutputs
        ? await continueResponseTask(deps, principal, { ...parsed, toolOutputs })
        : await startResponseTask(deps, { principal, headers: request.headers }, parsed);
      if (parsed.stream) return streamResponse(deps, response, -1, reply);
      const answer = parsed.background ? await responseNow(deps, response) : await endedResponse(deps, response, whileConnected(reply));
      return reply.headers(responseHeaders(response)).send(answer);
    },
  }),
  openAiRoute({
    method: 'GET',
    path: '/v1/responses/:response_id',
    query: responseQuery,
    answer: responseAnswer,
    summary: 'A response as it stands; with stream=true its events after starting_after, live until it ends',
    handle: async ({ request, principal }, reply, deps) => {
      const query = request.query as Record<string, unknown>;
      const stream = streamFlagOf(query);
      const startingAfter = startingAfterOf(query);
      const response = await ownResponse(deps, principal, request.params.response_id ?? '');
      if (stream) return streamResponse(deps, response, startingAfter, reply);
      return reply.headers(responseHeaders(response)).send(await responseNow(deps, response));
    },
  }),
  openAiRoute({
    method: 'POST',
    path: '/v1/responses/:response_id/cancel',
    answer: responseAnswer,
    summary: 'Cancels a response in progress (its task); answers once it has ended',
    handle: async ({ request, principal }, reply, deps) => {
      const response = await ownResponse(deps, principal, request.params.response_id ?? '');
      const now = await responseNow(deps, response);
      if (now.status !== 'in_progress') return reply.headers(responseHeaders(response)).send(now);
      await deps.running.cancel(response.workflowId, 'cancelled through the Responses API');
      // Its end usually follows at once; a task slow to stop is answered as it stands (GET tells the rest).
      const waiting = AbortSignal.any([whileConnected(reply), AbortSignal.timeout(cancelWaitMs)]);
      await endedResponse(deps, response, waiting);
      return reply.headers(responseHeaders(response)).send(await responseNow(deps, response));
    },
  }),
];
