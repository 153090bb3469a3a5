// The baseline for the orchestration benchmark: a bare Temporal workflow with the same number of
// activity round trips as a STANDARD task (start, one model step, finish), doing nothing else.
import { proxyActivities } from '@temporalio/workflow';

export interface BareActivities {
  noop(step: number): Promise<number>;
}

const { noop } = proxyActivities<BareActivities>({ startToCloseTimeout: '10 seconds' });

export async function bareWorkflow(): Promise<number> {
  let total = 0;
  for (let step = 0; step < 3; step++) total += await noop(step);
  return total;
}
