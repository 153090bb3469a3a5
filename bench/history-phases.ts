import type { temporal } from '@temporalio/proto';
import { eventMillis } from './activity-times';

// Where a workflow's time went, from its history's event times (the server's clock) and the
// caller's: before the worker started its first workflow task, in workflow tasks, in activities,
// waiting between a task being scheduled and a worker starting it, and from its completion until
// the caller held the result.

export const phases = ['before the worker', 'workflow tasks', 'activities', 'dispatch', 'to the caller'] as const;
export type Phase = (typeof phases)[number];

const EventType = { WftScheduled: 5, WftStarted: 6, WftCompleted: 7, ActScheduled: 10, ActStarted: 11, ActCompleted: 12 } as const;

/** One workflow's time split into the phases, from its history and the caller's clock (epoch ms). */
export function splitTime(events: temporal.api.history.v1.IHistoryEvent[], submittedAt: number, resultAt: number): Record<Phase, number> {
  const split: Record<Phase, number> = { 'before the worker': 0, 'workflow tasks': 0, activities: 0, dispatch: 0, 'to the caller': 0 };
  let scheduledAt = 0;
  let startedAt = 0;
  for (const event of events) {
    const at = eventMillis(event);
    const type = Number(event.eventType);
    if (type === EventType.WftScheduled || type === EventType.ActScheduled) scheduledAt = at;
    if (type === EventType.WftStarted || type === EventType.ActStarted) {
      if (split['before the worker'] === 0) split['before the worker'] = at - submittedAt;
      else split.dispatch += at - scheduledAt;
      startedAt = at;
    }
    if (type === EventType.WftCompleted) split['workflow tasks'] += at - startedAt;
    if (type === EventType.ActCompleted) split.activities += at - startedAt;
  }
  split['to the caller'] = resultAt - eventMillis(events.at(-1)!);
  return split;
}
