import type { temporal } from '@temporalio/proto';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** An event's time, epoch milliseconds (with their fraction). */
export const eventMillis = (event: HistoryEvent) => Number(event.eventTime!.seconds) * 1000 + (event.eventTime!.nanos ?? 0) / 1e6;

/** Scheduled-to-completed time of each of a history's activities of one type, in history order. */
export function activityTimes(events: HistoryEvent[], type: string): number[] {
  const scheduled = new Map<number, number>();
  const times: number[] = [];
  for (const event of events) {
    if (event.activityTaskScheduledEventAttributes?.activityType?.name === type) scheduled.set(Number(event.eventId), eventMillis(event));
    const done = event.activityTaskCompletedEventAttributes;
    if (done && scheduled.has(Number(done.scheduledEventId))) times.push(eventMillis(event) - scheduled.get(Number(done.scheduledEventId))!);
  }
  return times;
}
