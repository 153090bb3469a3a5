import { proxyActivities } from '@temporalio/workflow';
import type { WeftActivities } from '../activities';

// Every activity the workflows call, with its timeouts and retries, declared once.

// Store writes take milliseconds; a short timeout lets a retry follow a dead worker quickly.
export const storeActivities = proxyActivities<WeftActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '200 milliseconds', maximumInterval: '10 seconds' },
});

// Model calls are long but heartbeat, so a dead worker is noticed within the heartbeat timeout.
export const modelActivities = proxyActivities<WeftActivities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 5 },
});

export const toolActivities = proxyActivities<WeftActivities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 3 },
});
