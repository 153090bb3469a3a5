// The baselines for the orchestration benchmark: bare Temporal workflows with the same number of
// activity round trips as a STANDARD task had when the benchmark was written (start, one model
// step, finish), doing nothing else, or nothing else but the same model call. And, for the
// workflow-shape benchmark, a STANDARD task's own shape with nothing inside it: one activity (which
// records the task's start), its end as a local activity, its status upserts and the patch every
// task checks first; and that one activity alone, with the status upserts.
import { patched, proxyActivities, proxyLocalActivities, upsertSearchAttributes } from '@temporalio/workflow';
import { taskStatusKey } from '../../workflows/search-attributes';

export interface BareActivities {
  noop(step: number): Promise<number>;
  /** The query sent to the model server as a STANDARD task's step sends it (the openai client, streamed). */
  modelCall(query: string): Promise<number>;
}

const { noop, modelCall } = proxyActivities<BareActivities>({ startToCloseTimeout: '10 seconds' });
const local = proxyLocalActivities<BareActivities>({ startToCloseTimeout: '10 seconds' });

export async function bareWorkflow(): Promise<number> {
  let total = 0;
  for (let step = 0; step < 3; step++) total += await noop(step);
  return total;
}

export async function bareModelWorkflow(query: string): Promise<number> {
  return (await noop(0)) + (await modelCall(query)) + (await noop(2));
}

/**
 * A STANDARD task's shape (workflows/task-workflow.ts): the same commands, in the same workflow
 * tasks. Every task checks a patch first (workflows/reset-run.ts), which records a marker and
 * upserts TemporalChangeVersion; the mode the API started it with is not upserted again.
 */
export async function taskShapeWorkflow(): Promise<number> {
  patched('task-shape');
  upsertSearchAttributes([{ key: taskStatusKey, value: 'RUNNING' }]);
  let total = await noop(1);
  total += await local.noop(2);
  upsertSearchAttributes([{ key: taskStatusKey, value: 'COMPLETED' }]);
  return total;
}

/** The task's shape without its start and end: one activity between the two status upserts. */
export async function oneActivityWorkflow(): Promise<number> {
  upsertSearchAttributes([{ key: taskStatusKey, value: 'RUNNING' }]);
  const total = await noop(1);
  upsertSearchAttributes([{ key: taskStatusKey, value: 'COMPLETED' }]);
  return total;
}
