// The baselines for the orchestration benchmark: bare Temporal workflows with the same number of
// activity round trips as a STANDARD task (start, one model step, finish), doing nothing else, or
// nothing else but the same model call.
import { proxyActivities } from '@temporalio/workflow';

export interface BareActivities {
  noop(step: number): Promise<number>;
  /** The query sent to the model server as a STANDARD task's step sends it (the openai client, streamed). */
  modelCall(query: string): Promise<number>;
}

const { noop, modelCall } = proxyActivities<BareActivities>({ startToCloseTimeout: '10 seconds' });

export async function bareWorkflow(): Promise<number> {
  let total = 0;
  for (let step = 0; step < 3; step++) total += await noop(step);
  return total;
}

export async function bareModelWorkflow(query: string): Promise<number> {
  return (await noop(0)) + (await modelCall(query)) + (await noop(2));
}
