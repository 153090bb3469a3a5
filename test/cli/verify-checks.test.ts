import type { Pool, PoolClient } from 'pg';
import { verifyTask } from '../../cli/verify';
import { createRuntimeStore, RecordType } from '../../core/store';
import { submitTask, waitForFinish } from '../support/grpc';
import { startTestStack, type TestStack } from '../support/stack';
import { verifyFinishedTask } from '../support/verification';

// Every check of `weft verify` fires on the fault it is there to catch. Two finished tasks (one
// agent with a tool call; a plan of two agents) verify clean; then each test breaks the store in
// one way inside a transaction, runs verify on what that transaction sees, and rolls it back.

let stack: TestStack;
let single: { taskId: string; workflowId: string };
let planned: { taskId: string; workflowId: string };

beforeAll(async () => {
  stack = await startTestStack();
  const query = `verify checks single ${Date.now()}`;
  stack.model.on(query, { toolCalls: [{ id: 'calc-1', name: 'calculator', arguments: '{"expression":"2+2"}' }] }, { content: 'four' });
  const prefix = `verify checks planned ${Date.now()}`;
  stack.model.on(`${prefix} first`, { content: 'first result' });
  stack.model.on(`${prefix} second`, { content: 'second result' });
  stack.model.on((text) => text.includes('Combine these results') && text.includes(prefix), { content: 'combined' });
  const [one, plan] = await Promise.all([
    submitTask(stack.orchestrator, { query }),
    submitTask(stack.orchestrator, {
      query: `${prefix} task`,
      manual_decomposition: {
        agent_tasks: [
          { agent_id: 'first', description: `${prefix} first` },
          { agent_id: 'second', description: `${prefix} second` },
        ],
      },
    }),
  ]);
  single = { taskId: one.task_id, workflowId: one.workflow_id };
  planned = { taskId: plan.task_id, workflowId: plan.workflow_id };
  for (const task of [single, planned]) {
    expect((await waitForFinish(stack.orchestrator, task.taskId)).status).toBe('TASK_STATUS_COMPLETED');
    expect(await verifyFinishedTask(stack, task.taskId)).toEqual([]);
  }
}, 120_000);
afterAll(() => stack.stop());

/** What verify reports for `taskId` on the store as `breakIt` leaves it; the store is left as it was. */
async function verifiedAfter(taskId: string, breakIt: (tx: PoolClient) => Promise<unknown>): Promise<string[]> {
  const tx = await stack.pool.connect();
  try {
    await tx.query('BEGIN');
    await breakIt(tx);
    const pool = tx as unknown as Pool;
    return await verifyTask({ pool, store: createRuntimeStore(pool), temporal: stack.temporal }, taskId);
  } finally {
    await tx.query('ROLLBACK');
    tx.release();
  }
}

/** Another copy of one of the run's records, under a key of its own. */
const copyRecord = (tx: PoolClient, runId: string, type: string, key: string) =>
  tx.query(
    `INSERT INTO runtime_run_records (run_id, event_key, agent_id, session_id, turn_id, record_type, payload, recorded_at)
     SELECT run_id, $3, agent_id, session_id, turn_id, record_type, payload, recorded_at FROM runtime_run_records
     WHERE run_id = $1 AND record_type = $2 LIMIT 1`,
    [runId, type, key],
  );

it('a task the store does not know', async () => {
  expect(await verifyTask({ pool: stack.pool, store: stack.store, temporal: stack.temporal }, 'task-never-submitted')).toEqual([
    'task-never-submitted: not in the store',
  ]);
});

it('a task Temporal does not know', async () => {
  const problems = await verifiedAfter(single.taskId, (tx) =>
    tx.query(`UPDATE tasks SET workflow_id = 'no-such-workflow' WHERE task_id = $1`, [single.taskId]),
  );
  expect(problems).toEqual([`${single.taskId}: the store has it, Temporal does not`]);
});

it('a second run_started record', async () => {
  const problems = await verifiedAfter(single.taskId, (tx) => copyRecord(tx, single.workflowId, RecordType.RunStarted, `${single.workflowId}/started-again`));
  expect(problems).toEqual([`${single.taskId}: 2 run_started records (one expected)`]);
});

it('a second run_completed record', async () => {
  const problems = await verifiedAfter(single.taskId, (tx) => copyRecord(tx, single.workflowId, RecordType.RunCompleted, `${single.workflowId}/ended-again`));
  expect(problems).toEqual([`${single.taskId}: 2 run_completed records (one expected)`]);
});

it('a finished task without its run_completed record', async () => {
  const problems = await verifiedAfter(single.taskId, (tx) =>
    tx.query('DELETE FROM runtime_run_records WHERE run_id = $1 AND record_type = $2', [single.workflowId, RecordType.RunCompleted]),
  );
  expect(problems).toEqual([`${single.taskId}: 0 run_completed records (one expected)`]);
});

it('a gap in the event log', async () => {
  const problems = await verifiedAfter(single.taskId, (tx) => tx.query('DELETE FROM task_events WHERE workflow_id = $1 AND seq = 2', [single.workflowId]));
  expect(problems).toEqual([`${single.taskId}: event 2 has seq 3: the log has a gap`]);
});

it("a task's usage that its steps do not add up to", async () => {
  const problems = await verifiedAfter(single.taskId, (tx) => tx.query('UPDATE tasks SET total_tokens = total_tokens + 5 WHERE task_id = $1', [single.taskId]));
  expect(problems).toEqual([expect.stringMatching(new RegExp(`^${single.taskId}: usage \\d+ tokens, but its steps sum to \\d+$`))]);
});

it("a step's usage that is not what its activity reported", async () => {
  const problems = await verifiedAfter(single.taskId, (tx) =>
    tx.query(`UPDATE task_usage SET total_tokens = total_tokens + 7 WHERE task_id = $1 AND step_key = $2`, [
      single.taskId,
      `${single.workflowId}/step-0/reply`,
    ]),
  );
  expect(problems).toEqual([
    expect.stringMatching(new RegExp(`^${single.taskId}: usage \\d+ tokens, but its steps sum to \\d+$`)),
    expect.stringMatching(new RegExp(`^${single.taskId}: model step 1 of ${single.workflowId} used (\\d+) tokens, the store counts \\d+$`)),
  ]);
});

it('an approval still pending on a finished task', async () => {
  const problems = await verifiedAfter(single.taskId, (tx) =>
    tx.query(
      `INSERT INTO approvals (approval_id, task_id, workflow_id, query, kind, proposed_action, reason, status, requested_at, expires_at)
       VALUES ($1, $2, $3, 'q', 'tool', '{}', 'planted', 'pending', now(), now() + interval '1 hour')`,
      [`${single.workflowId}/approval/planted`, single.taskId, single.workflowId],
    ),
  );
  expect(problems).toEqual([`${single.taskId}: 1 approvals pending on a finished task`]);
});

it('an agent RUNNING in the store whose workflow has closed', async () => {
  const problems = await verifiedAfter(planned.taskId, (tx) =>
    tx.query(`UPDATE task_agents SET status = 'RUNNING' WHERE task_id = $1 AND agent_id = 'first'`, [planned.taskId]),
  );
  expect(problems).toEqual([
    `${planned.taskId}: 1 agents RUNNING on a finished task`,
    `${planned.taskId}: agent run ${planned.workflowId}/agent/first is RUNNING in the store, its workflow has closed`,
  ]);
});

it("an agent's run not linked to its task's run", async () => {
  const agentRun = `${planned.workflowId}/agent/second`;
  const problems = await verifiedAfter(planned.taskId, (tx) =>
    tx.query('DELETE FROM runtime_run_records WHERE run_id = $1 AND event_key = $2', [planned.workflowId, `${planned.workflowId}/link/${agentRun}`]),
  );
  expect(problems).toEqual([`${planned.taskId}: agent run ${agentRun} is not linked to the task's run ${planned.workflowId}`]);
});

it("an agent's model step that completed in Temporal without its record", async () => {
  const agentRun = `${planned.workflowId}/agent/first`;
  const problems = await verifiedAfter(planned.taskId, (tx) =>
    tx.query('DELETE FROM runtime_run_records WHERE run_id = $1 AND event_key = $2', [agentRun, `${agentRun}/step-0/reply`]),
  );
  expect(problems).toContain(`${planned.taskId}: model step 1 of ${agentRun} completed in Temporal but has no record`);
});

it('a run a reset replaced that was never started and ended', async () => {
  const replaced = `${single.workflowId}/replaced-run`;
  const problems = await verifiedAfter(single.taskId, async (tx) => {
    await tx.query(
      `INSERT INTO runtime_runs (run_id, agent_id, labels, status, start_outcome, started_at, updated_at)
       VALUES ($1, 'task', '{}', 'running', 'proceed', now(), now())`,
      [replaced],
    );
    await tx.query(`UPDATE runtime_runs SET labels = labels || jsonb_build_object('reset_from_run', $2::text) WHERE run_id = $1`, [
      single.workflowId,
      replaced,
    ]);
  });
  expect(problems).toEqual([`${single.taskId}: run ${replaced}, which a reset replaced, has 0 run_started and 0 run_completed records (one each expected)`]);
});
