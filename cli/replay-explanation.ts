import { temporal } from '@temporalio/proto';

type History = temporal.api.history.v1.IHistory;
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

// A replay mismatch in plain words. The SDK reports the core's message inside a debug dump
// ("Failure { failure: Some(Failure { message: \"[TMPRL1100] Nondeterminism error: ...\" ..."); this
// finds the event it is about in the history and says what was recorded and what the code did.

export interface MismatchExplanation {
  /** The history event the code disagreed with, when the message names or implies one. */
  eventId?: number;
  eventType?: string;
  recorded: string;
  instead: string;
  /** The SDK's own words, for whoever wants them. */
  detail: string;
}

export const mismatchRemedy = [
  'If the change is intended, running workflows must keep their old code: ship it as a new worker build (with worker',
  'versioning, the default, each task stays on the build that started it; with it off, drain the open tasks first, see',
  'docs/internals/replay-and-versions.md). If no change was intended, the workflow code is not deterministic: look for',
  'time, randomness or I/O outside activities.',
];

const eventTypeName = (event: HistoryEvent) => {
  const name = temporal.api.enums.v1.EventType[event.eventType ?? 0] ?? 'UNKNOWN';
  return name.replace(/^EVENT_TYPE_/, '');
};

/** The core's message inside the SDK's dump, unescaped. */
function coreMessage(message: string): string {
  const inner = /message: "((?:[^"\\]|\\.)*)"/.exec(message)?.[1];
  return (inner ?? message).replace(/\\(.)/g, '$1').replace(/^\[TMPRL1100\] Nondeterminism error: /, '');
}

/** The first event whose attributes hold `value` (a child's id, an activity's type). */
function eventHolding(history: History, value: string): HistoryEvent | undefined {
  return history.events?.find((event) => JSON.stringify(event).includes(JSON.stringify(value)));
}

/** The marker a patched() call recorded for `change`. */
function patchMarkerOf(history: History, change: string): HistoryEvent | undefined {
  return history.events?.find((event) => {
    const details = event.markerRecordedEventAttributes?.details ?? {};
    return Object.values(details).some((payloads) =>
      payloads.payloads?.some((payload) =>
        Buffer.from(payload.data ?? [])
          .toString('utf8')
          .includes(change),
      ),
    );
  });
}

export function explainMismatch(history: History, sdkMessage: string): MismatchExplanation {
  const detail = coreMessage(sdkMessage);
  const named = /HistoryEvent\(id: (\d+), (\w+)\)/.exec(detail);
  if (named) {
    const event = history.events?.find((e) => Number(e.eventId) === Number(named[1]));
    return {
      eventId: Number(named[1]),
      eventType: event ? eventTypeName(event) : named[2]!,
      recorded: named[2]!,
      instead: /no command/i.test(detail) ? 'issued no matching command' : 'issued a different command at this point',
      detail,
    };
  }
  const differing = /^(.+?) of scheduled event '([^']*)' does not match .+? of command '([^']*)'/.exec(detail);
  if (differing) {
    const [, what, recorded, instead] = differing as unknown as [string, string, string, string];
    const event = eventHolding(history, recorded);
    return {
      ...(event ? { eventId: Number(event.eventId), eventType: eventTypeName(event) } : {}),
      recorded: `${what.toLowerCase()} '${recorded}'`,
      instead: `issued ${what.toLowerCase()} '${instead}'`,
      detail,
    };
  }
  const patch = /patch marker encountered for change ([^,\s]+), but there is no corresponding change command/.exec(detail);
  if (patch) {
    const event = patchMarkerOf(history, patch[1]!);
    return {
      ...(event ? { eventId: Number(event.eventId), eventType: eventTypeName(event) } : {}),
      recorded: `the patch marker '${patch[1]}'`,
      instead: `did not call patched('${patch[1]}') at this point`,
      detail,
    };
  }
  return { recorded: 'see below', instead: 'see below', detail };
}

export function explanationLines(explanation: MismatchExplanation): string[] {
  const at = explanation.eventId ? `event ${explanation.eventId} (${explanation.eventType})` : 'an event the SDK did not name';
  return [
    `  at ${at}: the history recorded ${explanation.recorded}`,
    `  the current code ${explanation.instead}`,
    `  SDK: ${explanation.detail}`,
    ...mismatchRemedy.map((line, i) => `${i === 0 ? '  remedy: ' : '          '}${line}`),
  ];
}
