import { Context } from '@temporalio/activity';

/**
 * Heartbeats while `work` runs, so a dead worker is noticed within the heartbeat timeout and a
 * cancelled workflow reaches the activity (through its cancellation signal) during long calls.
 */
export async function whileHeartbeating<T>(work: () => Promise<T>, everyMs = 1_000): Promise<T> {
  const context = Context.current();
  const timer = setInterval(() => context.heartbeat(), everyMs);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
