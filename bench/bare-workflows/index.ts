// The baselines that Weft's benches hold it against: the least bare Temporal (and bare Postgres)
// needs to do the same job. A STANDARD task's job is one model call whose answer is the task's
// result, and its end recorded: its baseline has the task's shape, one activity making that call
// (streamed, with the openai client, as a model step makes it), then the end as a local activity
// that records the answer in Postgres with one INSERT; the same call alone is printed beside it as
// a reference. For the workflow-shape benchmark, one empty activity, and a
// STANDARD task's own shape with nothing inside it: one activity (which records the task's start),
// its end as a local activity, its status upserts and the patch every task checks first; and that
// one activity alone, with the status upserts.
import { proxyActivities, proxyLocalActivities, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { taskStatusKey } from '../../workflows/search-attributes';

export interface BareActivities {
  noop(step: number): Promise<number>;
  /** The query sent to the model server as a STANDARD task's step sends it (the openai client, streamed); the answer. */
  modelCall(query: string): Promise<string>;
  /** The task's end, kept in Postgres: one INSERT of its answer (a retry inserts nothing twice). */
  recordEnd(workflowId: string, answer: string): Promise<void>;
}

const { noop, modelCall } = proxyActivities<BareActivities>({ startToCloseTimeout: '10 seconds' });
const local = proxyLocalActivities<BareActivities>({ startToCloseTimeout: '10 seconds' });

/** A STANDARD task's job on bare Temporal, in the task's shape: the model call, then its end recorded as a local activity. */
export async function bareTaskWorkflow(query: string): Promise<string> {
  const answer = await modelCall(query);
  await local.recordEnd(workflowInfo().workflowId, answer);
  return answer;
}

/** The model call alone, its answer the workflow's result: the reference beside the baseline. */
export async function modelCallWorkflow(query: string): Promise<string> {
  return modelCall(query);
}

/** One activity round trip that does nothing. */
export async function oneEmptyActivityWorkflow(): Promise<number> {
  return noop(1);
}

/**
 * A STANDARD task's shape (workflows/task-workflow.ts): the same commands, in the same workflow
 * tasks. The API started it with the status and mode it runs with, so neither is upserted until
 * the end; no patch is asked (a change ships as a new build).
 */
export async function taskShapeWorkflow(): Promise<number> {
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
