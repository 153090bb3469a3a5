import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Pool } from 'pg';
import { launchTaskWorkflow } from '../api/tasks/task-start';
import type { RuntimeStore } from '../core/store';
import { findTask } from '../core/tasks/task-index';
import { readRunLog } from '../core/transcript';
import type { TaskWorkflowInput } from '../workflows/task-workflow-types';
import { startInputOf } from './start-input';

// `weft fork <task> --from-step N`: the task again, as a new task, from its step N. Steps before N
// reuse the original's recorded model replies and tool results (nothing is called or charged
// again); steps from N run fresh. The original keeps all its records; the fork's run is labelled
// with where it came from (forked_from_task, forked_from_run, forked_from_step).

export interface ForkDeps {
  pool: Pool;
  store: RuntimeStore;
  temporal: Client;
  taskQueue: string;
}

/** How many model steps the task's own run recorded. */
async function recordedSteps(store: RuntimeStore, runId: string): Promise<number> {
  const replies = (await readRunLog(store, runId)).filter((record) => /\/step-\d+\/reply$/.test(record.key));
  return replies.length;
}

/** Starts the fork and returns its task id. */
export async function forkTask(deps: ForkDeps, taskId: string, fromStep: number): Promise<string> {
  const task = await findTask(deps.pool, taskId);
  if (!task) throw new Error(`task ${taskId} is not in the store`);
  if (task.mode === 'COMPLEX') throw new Error(`task ${taskId} ran COMPLEX: fork re-runs single-agent tasks (SIMPLE and STANDARD)`);
  const steps = await recordedSteps(deps.store, task.runId);
  if (!Number.isInteger(fromStep) || fromStep < 1 || fromStep > steps + 1) {
    throw new Error(`--from-step must be 1 to ${steps + 1}: task ${taskId} recorded ${steps} model steps`);
  }
  const { resume, manualPlan, ...original } = await startInputOf(deps.temporal, task.workflowId);
  const fork: TaskWorkflowInput = {
    ...original,
    taskId: `task-${randomUUID()}`,
    // Outside the session: the fork adds nothing to the conversation. As one agent: routing would ask a model again.
    sessionId: '',
    autoDecompose: false,
    fork: { fromTaskId: task.taskId, fromRunId: task.runId, fromStep },
  };
  await launchTaskWorkflow(deps.temporal, deps.taskQueue, fork);
  return fork.taskId;
}
