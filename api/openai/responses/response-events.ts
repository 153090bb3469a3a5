import { listTaskEvents } from '../../../core/events/event-log';
import type { StoredResponse } from '../../../core/openai/response-index';
import { endedAfter, tailTaskEvents } from '../../tasks/task-event-tail';
import { outcomeOf } from '../completion-answer';
import type { OpenAiDeps } from '../completion-task';
import { ResponseProjection, type ResponseEventBody } from './response-projection';

// A response read from its task's event log (after the point it began: a response that continues
// its task with the client's tool outputs begins where the one before ended): as it stands now
// (GET), or as OpenAI's stream of numbered events, from the first or after a sequence number, live
// until the task ends or hands the client calls of its own tools.

export type ResponseEvent = ResponseEventBody & { sequence_number: number };

/**
 * The response's events numbered from 0, those after `startingAfter` yielded, following the log
 * until the task's end (then its outcome's events) or until `signal` aborts. The numbering is the
 * fold's, from the log's start, so every process numbers every event alike.
 */
export async function* responseEvents(
  deps: Pick<OpenAiDeps, 'pool' | 'events'>,
  response: StoredResponse,
  startingAfter: number,
  signal: AbortSignal,
): AsyncGenerator<ResponseEvent> {
  const projection = new ResponseProjection(response);
  let next = 0;
  function* numbered(bodies: ResponseEventBody[]): Generator<ResponseEvent> {
    for (const body of bodies) {
      const sequence_number = next++;
      if (sequence_number > startingAfter) yield { ...body, sequence_number };
    }
  }
  yield* numbered(projection.begin());
  for await (const event of tailTaskEvents(deps, response.workflowId, response.afterSeq, signal)) {
    yield* numbered(projection.apply(event));
    // The client has the calls its task waits for: this response has ended, the task has not.
    if (projection.ended) return;
  }
  if (signal.aborted) return;
  yield* numbered(projection.end(await outcomeOf(deps, response.taskId)));
}

const pageSize = 1000;

/** The response as its task's log has it now: in progress, or ended with the task's outcome. */
export async function responseNow(deps: Pick<OpenAiDeps, 'pool'>, response: StoredResponse) {
  const projection = new ResponseProjection(response);
  let after = response.afterSeq;
  let ended = false;
  for (;;) {
    const page = await listTaskEvents(deps.pool, response.workflowId, after, pageSize);
    for (const event of page) {
      projection.apply(event);
      after = event.seq;
      ended = endedAfter(ended, event);
    }
    if (page.length < pageSize || projection.ended) break;
  }
  if (ended && !projection.ended) projection.end(await outcomeOf(deps, response.taskId));
  return projection.snapshot();
}
