import { taskEventsAnswer, timelineAnswer } from './shannon-schemas';
import { runningTasks } from '../tasks/running-tasks';
import { notFound, TaskError } from '../tasks/task-errors';
import { listTaskEvents, type TaskEvent } from '../../core/events/event-log';
import { ownTaskOf } from '../tasks/task-ownership';
import { badRequest, integerParam, type ShannonRoute } from './shannon-route';
import { timelineOf, type TimelineMode } from './task-timeline';

// A task's durable event log, paged (GET /api/v1/tasks/{id}/events), and its Temporal history as a
// timeline (GET /api/v1/tasks/{id}/timeline), as Shannon's gateway serves them.

/** An event as Shannon's clients read it; its stream id resumes a stream right after it. */
export function shannonEvent(event: TaskEvent) {
  return {
    workflow_id: event.workflowId,
    type: event.type,
    agent_id: event.agentId,
    message: event.message,
    timestamp: event.at.toISOString(),
    seq: event.seq,
    stream_id: `${event.at.getTime()}-${event.seq}`,
    ...(Object.keys(event.payload).length > 0 ? { payload: event.payload } : {}),
  };
}

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const timelineModes: readonly TimelineMode[] = ['summary', 'full'];

export const taskRoutes: ShannonRoute[] = [
  {
    method: 'GET',
    path: '/api/v1/tasks/:task_id/events',
    answer: taskEventsAnswer,
    summary: "A task's stored events in order (limit 1-200, default 50; offset), as Shannon's gateway pages them",
    tag: 'tasks',
    query: ['limit', 'offset'],
    async handle({ principal, params, query }, deps) {
      const limit = integerParam(query, 'limit', 50, { min: 1, max: 200 });
      const offset = integerParam(query, 'offset', 0, { min: 0, max: Number.MAX_SAFE_INTEGER });
      const task = await ownTaskOf(deps, params.task_id!, principal);
      // Sequence numbers are gap-free from 1, so the offset is the sequence to read after.
      const events = await listTaskEvents(deps.pool, task.workflowId, offset, limit);
      return { body: { task_id: task.taskId, events: events.map(shannonEvent), count: events.length } };
    },
  },
  {
    method: 'GET',
    path: '/api/v1/tasks/:task_id/timeline',
    answer: timelineAnswer,
    summary: "A task's Temporal history in plain words: mode=summary (what changed) or full (every event); run_id for an earlier run",
    tag: 'tasks',
    query: ['mode', 'run_id'],
    async handle({ principal, params, query }, deps) {
      const mode = (query.mode ?? 'summary') as TimelineMode;
      if (!timelineModes.includes(mode)) throw badRequest('mode must be summary or full');
      const runId = typeof query.run_id === 'string' && query.run_id ? query.run_id : undefined;
      if (runId && !uuid.test(runId)) throw badRequest('run_id must be a Temporal run id (a UUID)');
      const task = await ownTaskOf(deps, params.task_id!, principal);
      const history = await runningTasks(deps.temporal)
        .history(task.workflowId, runId)
        .catch((err: unknown) => {
          throw err instanceof TaskError && err.kind === 'not_found' ? notFound(`run ${runId ?? ''} of task ${task.taskId} not found`) : err;
        });
      const events = timelineOf(history.events ?? [], mode);
      return { body: { task_id: task.taskId, workflow_id: task.workflowId, ...(runId ? { run_id: runId } : {}), mode, events, count: events.length } };
    },
  },
];
