import { Context } from '@temporalio/activity';
import type { StepContext } from '../core/tasks/run/task-writes';

/**
 * The running activity as core sees a step: it heartbeats while slow calls run, so a dead worker is
 * noticed within the heartbeat timeout, and its cancellation signal reaches them.
 */
export function activityStep(everyMs = 1_000): StepContext {
  const context = Context.current();
  return {
    signal: context.cancellationSignal,
    attempt: context.info.attempt,
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
