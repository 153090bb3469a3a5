import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';

// A task's Temporal history as a person reads it: one line per event that changed something (the
// workflow's start and end, each activity and child workflow, signals, updates, timers, patches),
// or, in full, every event. It is built from the history itself, so it is what Temporal recorded.

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
type Payloads = temporal.api.common.v1.IPayloads | null | undefined;

export type TimelineMode = 'summary' | 'full';

export interface TimelineEntry {
  id: number;
  time: string;
  type: string;
  summary: string;
}

const typeName = (event: HistoryEvent) => (temporal.api.enums.v1.EventType[event.eventType ?? 0] ?? 'UNSPECIFIED').replace(/^EVENT_TYPE_/, '');

/** A payload as text, for names and reasons; an undecodable one is shown by its size. */
function payloadText(payload: temporal.api.common.v1.IPayload | null | undefined): string {
  if (!payload) return '';
  try {
    const value: unknown = defaultPayloadConverter.fromPayload(payload);
    return typeof value === 'string' ? value : JSON.stringify(value);
  } catch {
    return `(${payload.data?.length ?? 0} bytes)`;
  }
}

const firstPayload = (payloads: Payloads) => payloadText(payloads?.payloads?.[0]);
const failureOf = (failure: temporal.api.failure.v1.IFailure | null | undefined) => failure?.message ?? 'no message';
const named = (summary: string, what: string) => (summary ? `${what}: ${summary}` : what);

/** What one event did, in words; undefined for the bookkeeping a summary leaves out. */
function describe(event: HistoryEvent, scheduled: Map<number, string>): string | undefined {
  const summary = payloadText(event.userMetadata?.summary);
  const a = event;
  if (a.workflowExecutionStartedEventAttributes) return `workflow ${a.workflowExecutionStartedEventAttributes.workflowType?.name ?? ''} started`;
  if (a.workflowExecutionCompletedEventAttributes) return 'workflow completed';
  if (a.workflowExecutionFailedEventAttributes) return `workflow failed: ${failureOf(a.workflowExecutionFailedEventAttributes.failure)}`;
  if (a.workflowExecutionCanceledEventAttributes) return 'workflow cancelled';
  if (a.workflowExecutionTerminatedEventAttributes) return `workflow terminated: ${a.workflowExecutionTerminatedEventAttributes.reason || 'no reason given'}`;
  if (a.workflowExecutionTimedOutEventAttributes) return 'workflow timed out';
  if (a.workflowExecutionContinuedAsNewEventAttributes) return 'continued in a fresh history (continue-as-new)';
  if (a.workflowExecutionCancelRequestedEventAttributes)
    return `cancellation requested${a.workflowExecutionCancelRequestedEventAttributes.cause ? `: ${a.workflowExecutionCancelRequestedEventAttributes.cause}` : ''}`;
  if (a.activityTaskScheduledEventAttributes) {
    const what = named(summary, `activity ${a.activityTaskScheduledEventAttributes.activityType?.name ?? ''}`);
    scheduled.set(Number(event.eventId), what);
    return `${what} scheduled`;
  }
  if (a.activityTaskCompletedEventAttributes)
    return `${scheduled.get(Number(a.activityTaskCompletedEventAttributes.scheduledEventId)) ?? 'activity'} completed`;
  if (a.activityTaskFailedEventAttributes) {
    const attrs = a.activityTaskFailedEventAttributes;
    return `${scheduled.get(Number(attrs.scheduledEventId)) ?? 'activity'} failed: ${failureOf(attrs.failure)}`;
  }
  if (a.activityTaskTimedOutEventAttributes) return `${scheduled.get(Number(a.activityTaskTimedOutEventAttributes.scheduledEventId)) ?? 'activity'} timed out`;
  if (a.activityTaskCanceledEventAttributes) return `${scheduled.get(Number(a.activityTaskCanceledEventAttributes.scheduledEventId)) ?? 'activity'} cancelled`;
  if (a.startChildWorkflowExecutionInitiatedEventAttributes) {
    const attrs = a.startChildWorkflowExecutionInitiatedEventAttributes;
    return named(summary, `child workflow ${attrs.workflowType?.name ?? ''} ${attrs.workflowId ?? ''} started`);
  }
  if (a.childWorkflowExecutionCompletedEventAttributes)
    return `child workflow ${a.childWorkflowExecutionCompletedEventAttributes.workflowExecution?.workflowId ?? ''} completed`;
  if (a.childWorkflowExecutionFailedEventAttributes) {
    const attrs = a.childWorkflowExecutionFailedEventAttributes;
    return `child workflow ${attrs.workflowExecution?.workflowId ?? ''} failed: ${failureOf(attrs.failure)}`;
  }
  if (a.childWorkflowExecutionCanceledEventAttributes)
    return `child workflow ${a.childWorkflowExecutionCanceledEventAttributes.workflowExecution?.workflowId ?? ''} cancelled`;
  if (a.childWorkflowExecutionTerminatedEventAttributes)
    return `child workflow ${a.childWorkflowExecutionTerminatedEventAttributes.workflowExecution?.workflowId ?? ''} terminated`;
  if (a.workflowExecutionSignaledEventAttributes) {
    const attrs = a.workflowExecutionSignaledEventAttributes;
    return `signal ${attrs.signalName ?? ''}${attrs.identity ? ` from ${attrs.identity}` : ''}: ${firstPayload(attrs.input)}`;
  }
  if (a.workflowExecutionUpdateAcceptedEventAttributes) {
    const request = a.workflowExecutionUpdateAcceptedEventAttributes.acceptedRequest;
    return `update ${request?.input?.name ?? ''} accepted: ${firstPayload(request?.input?.args)}`;
  }
  if (a.workflowExecutionUpdateCompletedEventAttributes) return 'update completed';
  if (a.timerStartedEventAttributes) return named(summary, `timer ${a.timerStartedEventAttributes.timerId ?? ''} started`);
  if (a.timerFiredEventAttributes) return `timer ${a.timerFiredEventAttributes.timerId ?? ''} fired`;
  if (a.timerCanceledEventAttributes) return `timer ${a.timerCanceledEventAttributes.timerId ?? ''} cancelled`;
  if (a.markerRecordedEventAttributes) {
    const attrs = a.markerRecordedEventAttributes;
    const patch = attrs.markerName === 'core_patch' ? firstPayload(attrs.details?.patch_id) : '';
    return patch ? `patch ${patch} recorded` : `marker ${attrs.markerName ?? ''} recorded`;
  }
  return undefined;
}

export function timelineOf(events: HistoryEvent[], mode: TimelineMode): TimelineEntry[] {
  const scheduled = new Map<number, string>();
  const entries: TimelineEntry[] = [];
  for (const event of events) {
    const described = describe(event, scheduled);
    if (described === undefined && mode === 'summary') continue;
    const seconds = Number(event.eventTime?.seconds ?? 0);
    const nanos = event.eventTime?.nanos ?? 0;
    entries.push({
      id: Number(event.eventId),
      time: new Date(seconds * 1000 + Math.floor(nanos / 1e6)).toISOString(),
      type: typeName(event),
      summary: described ?? typeName(event).toLowerCase().replace(/_/g, ' '),
    });
  }
  return entries;
}
