import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { LifecycleActivities, ModelActivities, StoreActivities, ToolActivities } from '../activities';

// Every activity the workflows call, with its timeouts and retries, declared once. Each stub knows
// only its own group, so calling an activity through the wrong stub does not compile.

// Store writes take milliseconds; a short timeout lets a retry follow a dead worker quickly. The
// retry budget (about 9 minutes) rides out a database restart; after it the task fails with the
// cause recorded rather than stay RUNNING forever.
const storeRetry = { initialInterval: '200 milliseconds', maximumInterval: '15 seconds', maximumAttempts: 40 };

export const storeActivities = proxyActivities<StoreActivities>({
  startToCloseTimeout: '10 seconds',
  retry: storeRetry,
});

// Model calls and tool calls are long but heartbeat, so a dead worker is noticed within the
// heartbeat timeout. What fails them at the activity's level is Weft's own infrastructure (a worker
// that died, the store restarting), never a tool's own failure (an outcome the model is given), so
// they get the store's budget of about 9 minutes; providers that keep failing get fewer attempts,
// counted by the activity itself (activities/failures.ts).
const callRetry = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '15 seconds', maximumAttempts: 40 };

export const modelActivities = proxyActivities<ModelActivities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '10 seconds',
  retry: callRetry,
});

export const toolActivities = proxyActivities<ToolActivities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '10 seconds',
  retry: callRetry,
});

// A task's start (unless its first model step records it, deferred-start.ts) and end run as local
// activities: in the worker, recorded with the workflow task, without a round trip through the task
// queue. A local activity's input is not in history, so a workflow task that fails after one ran may
// propose it again with a later workflow time: the start therefore uses the workflow's start time,
// and the end accepts that its change is already recorded.
export const lifecycleActivities = proxyLocalActivities<LifecycleActivities>({
  startToCloseTimeout: '10 seconds',
  retry: storeRetry,
});
