import { submitTask, waitForFinish } from '../support/grpc';
import { runWeft } from '../support/weft-cli';
import { startTestStack, type TestStack } from '../support/stack';

// `weft verify` against the real dev server and database: a finished task verifies clean, and a
// store that contradicts Temporal is reported with exit code 1.

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());

it('verifies a finished task clean, and reports a store that disagrees with Temporal', async () => {
  stack.model.on('verify me', { content: 'verified answer' });
  const submitted = await submitTask(stack.orchestrator, { query: 'verify me' });
  await waitForFinish(stack.orchestrator, submitted.task_id);
  // Finished in Temporal too: the workflow closes a moment after its last activity recorded the end.
  await stack.temporal.workflow.getHandle(submitted.workflow_id).result();
  expect(runWeft('verify', submitted.task_id)).toMatchObject({ code: 0, output: 'OK: 1 tasks verified\n' });

  // As if a write had been lost: the store still says RUNNING, with its end's event missing.
  await stack.pool.query(`UPDATE tasks SET status = 'RUNNING' WHERE task_id = $1`, [submitted.task_id]);
  await stack.pool.query(`DELETE FROM task_events WHERE workflow_id = $1 AND event_type = 'WORKFLOW_COMPLETED'`, [submitted.workflow_id]);
  const broken = runWeft('verify', submitted.task_id);
  expect(broken.code).toBe(1);
  expect(broken.output).toContain(`${submitted.task_id}: Temporal says COMPLETED, the store says RUNNING`);
  expect(broken.output).toContain(`${submitted.task_id}: the event log ends with`);
  expect(broken.output).toContain('2 disagreements in 1 tasks');
});

it("reports a step Temporal's history completed that the store lost, and a record no step of the history wrote", async () => {
  const query = `verify my steps ${Date.now()}`;
  stack.model.on(query, { toolCalls: [{ id: 'calc-1', name: 'calculator', arguments: '{"expression":"2+2"}' }] }, { content: 'four' });
  const submitted = await submitTask(stack.orchestrator, { query });
  await waitForFinish(stack.orchestrator, submitted.task_id);
  // Finished in Temporal too: the workflow closes a moment after its last activity recorded the end.
  await stack.temporal.workflow.getHandle(submitted.workflow_id).result();
  expect(runWeft('verify', submitted.task_id)).toMatchObject({ code: 0 });

  // As if the tool's result had been lost, and a reply for a step that never ran had appeared.
  await stack.pool.query('DELETE FROM runtime_run_records WHERE run_id = $1 AND event_key = $2', [
    submitted.workflow_id,
    `${submitted.workflow_id}/tool/calc-1`,
  ]);
  await stack.pool.query(`UPDATE runtime_run_records SET event_key = $2 WHERE run_id = $1 AND event_key = $3`, [
    submitted.workflow_id,
    `${submitted.workflow_id}/step-7/reply`,
    `${submitted.workflow_id}/step-1/reply`,
  ]);
  const broken = runWeft('verify', submitted.task_id);
  expect(broken.code).toBe(1);
  expect(broken.output).toContain(`${submitted.task_id}: tool call calc-1 of ${submitted.workflow_id} completed in Temporal but has no record`);
  expect(broken.output).toContain(`${submitted.task_id}: model step 2 of ${submitted.workflow_id} completed in Temporal but has no record`);
  expect(broken.output).toContain(`${submitted.task_id}: record ${submitted.workflow_id}/step-7/reply has no completed activity in Temporal's history`);
});
