import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { temporal as proto } from '@temporalio/proto';

// Temporal resets as an operator makes them (the Web UI's Reset, `temporal workflow reset --event-id`),
// and the points of a task's history they go back to.

export type HistoryEvent = proto.api.history.v1.IHistoryEvent;
export type EventId = NonNullable<HistoryEvent['eventId']>;

export const scheduledOf = (events: HistoryEvent[], activity: string) =>
  events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === activity);

/** Resets the workflow to the workflow task `pick` chooses in its current history; the new run's id. */
export async function resetWorkflowTo(temporal: Client, workflowId: string, pick: (events: HistoryEvent[]) => EventId, reapplySignals = true): Promise<string> {
  const { events } = await temporal.workflow.getHandle(workflowId).fetchHistory();
  const { runId } = await temporal.workflowService.resetWorkflowExecution({
    namespace: 'default',
    workflowExecution: { workflowId },
    reason: 'operator reset',
    workflowTaskFinishEventId: pick(events ?? []),
    requestId: randomUUID(),
    // The Web UI's "reapply signals" choice: the default re-sends the signals received after the point.
    ...(reapplySignals ? {} : { resetReapplyType: proto.api.enums.v1.ResetReapplyType.RESET_REAPPLY_TYPE_NONE }),
  });
  return runId!;
}

/** The workflow task that scheduled the nth model step of the history: resetting to it runs that step again. */
export const beforeModelStep = (n: number) => (events: HistoryEvent[]) =>
  scheduledOf(events, 'runModelStep')[n - 1]!.activityTaskScheduledEventAttributes!.workflowTaskCompletedEventId!;

/** The workflow task that took the nth model step's reply: resetting to it decides again what follows it. */
export const afterModelStep = (n: number) => (events: HistoryEvent[]) => {
  const scheduled = Number(scheduledOf(events, 'runModelStep')[n - 1]!.eventId);
  const done = events.findIndex((e) => Number(e.activityTaskCompletedEventAttributes?.scheduledEventId ?? 0) === scheduled);
  return events.slice(done).find((e) => e.workflowTaskCompletedEventAttributes)!.eventId!;
};
