import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import type { OrchestratorServiceClient } from '../../protos/generated/shannon/orchestrator/OrchestratorService';
import type { RecordedRequest } from '../../test/model-server/scripted-model-server';
import { getTaskStatus } from '../../test/support/grpc';
import { untilAnswered, type ScriptedTask } from './load';

// The chaos run's judgement of Weft from outside Weft: what a client reads through the API (every
// task COMPLETED, with the answer its script implies), what the model server saw (no model call
// made more often than Temporal's history has attempts for), and Temporal's own histories (how
// many activities were retried: the faults hit work).

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

export interface OutsideVerdict {
  /** Tasks whose status or result is not what their script implies, as lines. */
  wrongAnswers: string[];
  completedWithExpectedAnswer: number;
  modelCalls: {
    /** Chat completions the model server received for the run's tasks. */
    received: number;
    /** Attempts of model-step activities in Temporal's histories. */
    attempts: number;
    /** Tasks whose model was asked more often than their histories have attempts: duplicate calls Temporal never knew of. */
    beyondAttempts: string[];
  };
  /** Activities Temporal ran more than once (a crash cut an attempt short, or what it needed was down). */
  retriedActivities: number;
}

/** Every run of a workflow and of its child workflows, as history events. */
async function historiesOf(temporalClient: Client, workflowId: string): Promise<HistoryEvent[][]> {
  const events = (await temporalClient.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const children = events.flatMap((e) => {
    const child = e.childWorkflowExecutionStartedEventAttributes?.workflowExecution?.workflowId;
    return child ? [child] : [];
  });
  const nested = await Promise.all([...new Set(children)].map((child) => historiesOf(temporalClient, child)));
  return [events, ...nested.flat()];
}

/** Per scheduled activity of the histories: its type and the attempts Temporal recorded for it. */
function activityAttempts(histories: HistoryEvent[][]): Array<{ type: string; attempts: number }> {
  return histories.flatMap((events) => {
    const types = new Map(
      events
        .filter((e) => e.activityTaskScheduledEventAttributes)
        .map((e) => [String(e.eventId), e.activityTaskScheduledEventAttributes!.activityType?.name ?? '']),
    );
    return events.flatMap((e) => {
      const started = e.activityTaskStartedEventAttributes;
      return started ? [{ type: types.get(String(started.scheduledEventId)) ?? '', attempts: started.attempt ?? 1 }] : [];
    });
  });
}

export async function judgeFromOutside(
  client: OrchestratorServiceClient,
  temporalClient: Client,
  modelRequests: RecordedRequest[],
  tasks: Array<ScriptedTask & { taskId: string; workflowId: string }>,
): Promise<OutsideVerdict> {
  const verdict: OutsideVerdict = {
    wrongAnswers: [],
    completedWithExpectedAnswer: 0,
    modelCalls: { received: 0, attempts: 0, beyondAttempts: [] },
    retriedActivities: 0,
  };
  for (const task of tasks) {
    const status = await untilAnswered(() => getTaskStatus(client, task.taskId));
    if (status.status === 'TASK_STATUS_COMPLETED' && status.result === task.expected) verdict.completedWithExpectedAnswer += 1;
    else verdict.wrongAnswers.push(`${task.taskId} (${task.kind}): ${status.status} "${status.result.slice(0, 80)}" ${status.error_message}`.trim());
    const attempts = activityAttempts(await historiesOf(temporalClient, task.workflowId));
    verdict.retriedActivities += attempts.filter((activity) => activity.attempts > 1).length;
    const stepAttempts = attempts.filter((activity) => activity.type === 'runModelStep').reduce((sum, activity) => sum + activity.attempts, 0);
    const query = task.request.query!;
    const received = modelRequests.filter((request) => request.path === '/v1/chat/completions' && JSON.stringify(request.body).includes(query)).length;
    verdict.modelCalls.received += received;
    verdict.modelCalls.attempts += stepAttempts;
    if (received > stepAttempts)
      verdict.modelCalls.beyondAttempts.push(`${task.taskId}: the model was asked ${received} times, Temporal recorded ${stepAttempts} attempts`);
  }
  return verdict;
}
