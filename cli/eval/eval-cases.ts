import type { Client } from '@temporalio/client';
import type { Pool } from 'pg';
import { lastRunsOfTemplate, newestTaskAsking } from '../../core/eval/eval-tasks';
import type { EvalSet } from '../../core/eval/eval-set';
import type { Expectation } from '../../core/eval/scorers';
import { findTask, findTaskByWorkflow, type TaskRecord } from '../../core/tasks/task-index';

// Which recorded tasks an eval runs again: named by id, the cases of an eval set, what a Temporal
// visibility query finds, or the last runs of a template. Only completed production tasks are
// recorded work; anything else is refused by name.

export interface EvalCaseSpec {
  name: string;
  recorded: TaskRecord;
  /** The case's own expectation; absent: the recorded answer, by the eval's scorer. */
  expectation?: Expectation;
}

export type Selection =
  { taskIds: string[] } | { set: EvalSet; tenantId?: string } | { where: string; limit: number } | { template: string; last: number; tenantId?: string };

function recordedWork(task: TaskRecord | undefined, named: string): TaskRecord {
  if (!task) throw new Error(`${named} is not in the store`);
  if (task.evalId) throw new Error(`${named} is a task of eval ${task.evalId}, not recorded work`);
  if (task.status !== 'COMPLETED') throw new Error(`${named} ended ${task.status}: an eval runs completed tasks again`);
  return task;
}

async function casesOfSet(pool: Pool, set: EvalSet, tenantId: string | undefined): Promise<EvalCaseSpec[]> {
  return Promise.all(
    set.cases.map(async (c, i) => {
      const name = c.name ?? `${set.name}#${i + 1}`;
      const task = c.task ? await findTask(pool, c.task) : await newestTaskAsking(pool, c.query!, tenantId);
      if (!task && c.query) throw new Error(`case ${name}: no completed task asked ${JSON.stringify(c.query)} (record it first: submit the query)`);
      return { name, recorded: recordedWork(task, `case ${name}: task ${c.task}`), ...(c.expect ? { expectation: c.expect } : {}) };
    }),
  );
}

async function tasksFound(pool: Pool, temporal: Client, where: string, limit: number): Promise<TaskRecord[]> {
  const tasks: TaskRecord[] = [];
  for await (const workflow of temporal.workflow.list({ query: `WorkflowType = 'taskWorkflow' AND ExecutionStatus = 'Completed' AND (${where})` })) {
    const task = await findTaskByWorkflow(pool, workflow.workflowId);
    if (task && !task.evalId && task.status === 'COMPLETED') tasks.push(task);
    if (tasks.length >= limit) break;
  }
  return tasks;
}

export async function selectCases(deps: { pool: Pool; temporal: Client }, selection: Selection): Promise<EvalCaseSpec[]> {
  const named = (tasks: TaskRecord[]) => tasks.map((task) => ({ name: task.taskId, recorded: task }));
  let cases: EvalCaseSpec[];
  if ('taskIds' in selection) {
    cases = named(await Promise.all(selection.taskIds.map(async (taskId) => recordedWork(await findTask(deps.pool, taskId), `task ${taskId}`))));
  } else if ('set' in selection) {
    cases = await casesOfSet(deps.pool, selection.set, selection.tenantId);
  } else if ('where' in selection) {
    cases = named(await tasksFound(deps.pool, deps.temporal, selection.where, selection.limit));
  } else {
    cases = named(await lastRunsOfTemplate(deps.pool, selection.template, selection.last, selection.tenantId));
  }
  if (cases.length === 0) throw new Error('the selection found no completed tasks to run again');
  return cases;
}
