import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { unaryCall } from '../../protos/clients';
import type { EvalSet } from '../../core/eval/eval-set';
import { taskStatus, withService, type ApiTarget } from '../api-client';

// `weft eval record <set>`: the set's queries submitted through the API as ordinary tasks of the
// key's tenant, so there is recorded work to run again. Each query's task id is derived from the
// set and the query, so recording again finds the same tasks instead of submitting more.

const endedStatuses = new Set(['TASK_STATUS_COMPLETED', 'TASK_STATUS_FAILED', 'TASK_STATUS_CANCELLED', 'TASK_STATUS_TIMEOUT']);

const recordingTaskId = (set: EvalSet, query: string) => `evalset-${set.name}-${createHash('sha256').update(query).digest('hex').slice(0, 16)}`;

/** Submits each query case and waits for its task to end; its task id and how it ended, per query. */
export async function recordSet(target: ApiTarget, set: EvalSet): Promise<Array<{ query: string; taskId: string; status: string }>> {
  const queries = [...new Set(set.cases.flatMap((c) => (c.query ? [c.query] : [])))];
  const submitted = await withService(target, 'orchestrator', (client) =>
    Promise.all(
      queries.map(async (query) => {
        const task = await unaryCall(client, 'SubmitTask', { query, auto_decompose: false, metadata: { task_id: recordingTaskId(set, query) } });
        return { query, taskId: task.task_id };
      }),
    ),
  );
  return Promise.all(
    submitted.map(async ({ query, taskId }) => {
      for (;;) {
        const { status } = await taskStatus(target, taskId);
        if (endedStatuses.has(status)) return { query, taskId, status: status.replace('TASK_STATUS_', '') };
        await sleep(500);
      }
    }),
  );
}
