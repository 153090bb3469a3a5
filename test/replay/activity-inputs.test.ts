import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { workflowsPath } from '../../workers/create-worker';

// Replay checks the order and names of commands, not what an activity is given. An activity that was
// scheduled by an older build can run on a newer worker, so inputs matter as much: replaying every
// golden history against the current code must schedule each activity with every recorded argument
// unchanged. New optional fields may appear (the activity then accepts their absence); none may go.

const historiesDir = path.join(__dirname, '../histories');
const goldenFiles = readdirSync(historiesDir).filter((file) => file.endsWith('.json') && file !== 'manifest.json');
const manifest = JSON.parse(readFileSync(path.join(historiesDir, 'manifest.json'), 'utf8')) as Record<string, string>;

type Scheduled = { activityType: string; args: unknown[] };

function recordedActivities(history: ReturnType<typeof historyFromJSON>): Scheduled[] {
  return (history.events ?? []).flatMap((event) => {
    const attributes = event.activityTaskScheduledEventAttributes;
    if (!attributes) return [];
    const args = (attributes.input?.payloads ?? []).map((payload) => defaultPayloadConverter.fromPayload(payload));
    return [{ activityType: attributes.activityType!.name!, args }];
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
  activities.map(({ activityType, args }) => ({
    activityType,
    args: args.map((arg) => (typeof arg === 'object' && arg !== null ? { ...arg, runId: undefined, handover: undefined } : arg)),
  }));

/** The run a history belongs to: a replayed workflow's info carries the same id. */
const runIdOf = (history: ReturnType<typeof historyFromJSON>) => history.events![0]!.workflowExecutionStartedEventAttributes!.originalExecutionRunId!;

it('schedules every activity of every golden history with the recorded arguments, new optional fields aside', async () => {
  const histories = goldenFiles.map((file) => ({ file, history: historyFromJSON(JSON.parse(readFileSync(path.join(historiesDir, file), 'utf8'))) }));
  const replayed = new Map<string, Scheduled[]>();
  const sinks = {
    scheduled: {
      activity: {
        fn: (info: { runId: string }, activityType: string, args: unknown[]) => {
          replayed.set(info.runId, [...(replayed.get(info.runId) ?? []), { activityType, args }]);
        },
        callDuringReplay: true,
      },
    },
  };
  const results = Worker.runReplayHistories(
    { workflowsPath, interceptors: { workflowModules: [require.resolve('./input-recorder')] }, sinks },
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
