import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { runContextHeader, type RunContext } from '../../core/tasks/run/run-context';
import { workflowInterceptorModules, workflowsPath } from '../../workers/create-worker';
import { recordedBy } from './frozen-builds';

// Replay checks the order and names of commands, not what an activity is given. What an activity is
// given matters as much: replaying every golden history against the current code must schedule each
// activity with every recorded argument unchanged, and with the same run context (a reset's handover,
// a pending start), which histories from before it moved to a header (workflows/run-context.ts)
// carried in the activity's input. New optional fields may appear; none may go. The histories are
// those the current code recorded: a frozen build's replay on that build's own code (frozen-builds.ts).

const historiesDir = path.join(__dirname, '../histories');
const goldenFiles = readdirSync(historiesDir).filter((file) => file.endsWith('.json') && file !== 'manifest.json' && !recordedBy[file]);
const manifest = JSON.parse(readFileSync(path.join(historiesDir, 'manifest.json'), 'utf8')) as Record<string, string>;

type Scheduled = { activityType: string; args: unknown[]; runContext: RunContext };

/** An input of a history from before the run context moved to a header: its fields, and the run context they held. */
function withRunContextApart(args: unknown[], header: RunContext): Pick<Scheduled, 'args' | 'runContext'> {
  const [first, ...rest] = args as [Record<string, unknown> & RunContext, ...unknown[]];
  if (typeof first !== 'object' || first === null) return { args, runContext: header };
  const { handover, start, ...own } = first;
  return { args: [own, ...rest], runContext: { ...(handover ? { handover } : {}), ...(start ? { start } : {}), ...header } };
}

function recordedActivities(history: ReturnType<typeof historyFromJSON>): Scheduled[] {
  return (history.events ?? []).flatMap((event) => {
    const attributes = event.activityTaskScheduledEventAttributes;
    if (!attributes) return [];
    const args = (attributes.input?.payloads ?? []).map((payload) => defaultPayloadConverter.fromPayload(payload));
    const header = attributes.header?.fields?.[runContextHeader];
    const runContext: RunContext = header ? defaultPayloadConverter.fromPayload(header) : {};
    return [{ activityType: attributes.activityType!.name!, ...withRunContextApart(args, runContext) }];
  });
}

/**
 * A reset's run replays under the id of the run it reset (a history does not hold its own run id),
 * so offline it cannot tell it is a reset and names the first run's store run, without a handover.
 * Those two fields of its activities are left out of the comparison; every other one stands.
 */
const isResetRun = (history: ReturnType<typeof historyFromJSON>) =>
  (history.events ?? []).some(
    (event) => event.workflowTaskFailedEventAttributes?.cause === temporal.api.enums.v1.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_RESET_WORKFLOW,
  );
const withoutRunOf = (activities: Scheduled[]) =>
  activities.map(({ activityType, args, runContext }) => ({
    activityType,
    args: args.map((arg) => (typeof arg === 'object' && arg !== null ? { ...arg, runId: undefined } : arg)),
    runContext: { ...runContext, handover: undefined },
  }));

/** The run a history belongs to: a replayed workflow's info carries the same id. */
const runIdOf = (history: ReturnType<typeof historyFromJSON>) => history.events![0]!.workflowExecutionStartedEventAttributes!.originalExecutionRunId!;

it('schedules every activity of every golden history with the recorded arguments and run context, new optional fields aside', async () => {
  const histories = goldenFiles.map((file) => ({ file, history: historyFromJSON(JSON.parse(readFileSync(path.join(historiesDir, file), 'utf8'))) }));
  expect(histories.length).toBeGreaterThan(0);
  const replayed = new Map<string, Scheduled[]>();
  const sinks = {
    scheduled: {
      activity: {
        fn: (info: { runId: string }, activityType: string, args: unknown[], runContext: RunContext) => {
          replayed.set(info.runId, [...(replayed.get(info.runId) ?? []), { activityType, args, runContext }]);
        },
        callDuringReplay: true,
      },
    },
  };
  const results = Worker.runReplayHistories(
    { workflowsPath, interceptors: { workflowModules: [...workflowInterceptorModules, require.resolve('./input-recorder')] }, sinks },
    histories.map(({ file, history }) => ({ workflowId: manifest[file]!, history })),
  );
  // Histories replay one after another, in order; the runs of one reset share their run id.
  const scheduledBy = new Map<string, Scheduled[]>();
  let next = 0;
  for await (const result of results) {
    expect(result.error).toBeUndefined();
    const { file, history } = histories[next++]!;
    scheduledBy.set(file, replayed.get(runIdOf(history)) ?? []);
    replayed.delete(runIdOf(history));
  }
  for (const { file, history } of histories) {
    const [replayedHere, recorded] = isResetRun(history)
      ? [withoutRunOf(scheduledBy.get(file)!), withoutRunOf(recordedActivities(history))]
      : [scheduledBy.get(file), recordedActivities(history)];
    // JSON round trip: the recorded side went through the payload converter too.
    expect({ file, activities: JSON.parse(JSON.stringify(replayedHere)) }).toMatchObject({ file, activities: JSON.parse(JSON.stringify(recorded)) });
  }
});
