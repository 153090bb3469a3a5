import { defaultPayloadConverter } from '@temporalio/common';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { runContextHeader, type RunContext } from '../core/tasks/run/run-context';
import { runHandovers } from '../core/tasks/run/run-handover';
import { taskLifecycle } from '../core/tasks/run/task-lifecycle';
import type { TaskWriteDeps } from '../core/tasks/run/task-write-deps';
import { withTemporalRetry } from './failures';
import { startRecordedBy } from './activity-step';

/**
 * Applies an activity's run context (core/tasks/run/run-context.ts) before the activity runs: a
 * reset's handover first (in a reset's run the start is the first run's, recorded already), then a
 * start that may not be recorded yet. Both are idempotent, so a retried activity applies them again
 * harmlessly; a handover that can never apply fails the activity at once. An attempt that has just
 * written the start tells its step so: the run holds nothing the step would read back.
 */
export function runContextInterceptor(deps: TaskWriteDeps): ActivityInterceptorsFactory {
  const handovers = runHandovers(deps);
  const lifecycle = taskLifecycle(deps);
  return (activity) => ({
    inbound: {
      async execute(input, next) {
        const header = input.headers[runContextHeader];
        const context: RunContext = header ? defaultPayloadConverter.fromPayload(header) : {};
        if (context.handover) await withTemporalRetry(() => handovers.takeOver(context.handover!));
        if (context.start) {
          const started = await withTemporalRetry(() => lifecycle.start(context.start!));
          if (started.recordedNow) startRecordedBy(activity);
        }
        return next(input);
      },
    },
  });
}
