import { status as GrpcStatus } from '@grpc/grpc-js';
import { isGrpcServiceError, type Client } from '@temporalio/client';
import type { Pool } from 'pg';
import { deleteEvalTask, runsOfTask, tasksOfEval } from '../../core/eval/eval-tasks';
import { agentWorkflowIdOf } from '../../workflows/task-scope';

// `weft eval delete <eval>`: an eval's tasks leave Temporal (each task's workflow and its agents',
// terminated first if still running) and then the store. Run again, it finishes what an
// interrupted delete left.

async function deleteWorkflow(temporal: Client, workflowId: string): Promise<void> {
  try {
    await temporal.workflowService.deleteWorkflowExecution({ namespace: temporal.options.namespace, workflowExecution: { workflowId } });
  } catch (err) {
    if (!(isGrpcServiceError(err) && err.code === GrpcStatus.NOT_FOUND)) throw err;
  }
}

/** Deletes the eval's tasks; returns how many. */
export async function deleteEval(deps: { pool: Pool; temporal: Client }, evalId: string): Promise<number> {
  const tasks = await tasksOfEval(deps.pool, evalId);
  for (const task of tasks) {
    const agents = (await runsOfTask(deps.pool, task.taskId)).filter((run) => run.agentId !== '');
    for (const workflowId of [task.workflowId, ...agents.map((agent) => agentWorkflowIdOf(task.workflowId, agent.agentId))])
      await deleteWorkflow(deps.temporal, workflowId);
    await deleteEvalTask(deps.pool, task.taskId);
  }
  return tasks.length;
}
