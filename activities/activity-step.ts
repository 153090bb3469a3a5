import { Context } from '@temporalio/activity';
import type { StepContext } from '../core/tasks/run/task-writes';

/** Attempts of activities that have just written their task's start (run-context-interceptor.ts). */
const startsRecordedNow = new WeakSet<Context>();

/** This attempt of the activity wrote its task's start before running. */
export function startRecordedBy(attempt: Context): void {
  startsRecordedNow.add(attempt);
}

/**
 * The running activity as core sees a step: it heartbeats while slow calls run, so a dead worker is
 * noticed within the heartbeat timeout, and its cancellation signal reaches them.
 */
export function activityStep(everyMs = 1_000): StepContext {
  const context = Context.current();
  return {
    signal: context.cancellationSignal,
    attempt: context.info.attempt,
    ...(startsRecordedNow.has(context) ? { startRecordedNow: true } : {}),
    async keepAlive(work) {
      const timer = setInterval(() => context.heartbeat(), everyMs);
      try {
        return await work();
      } finally {
        clearInterval(timer);
      }
    },
  };
}
