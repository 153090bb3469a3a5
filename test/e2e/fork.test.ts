import { forkTask } from '../../cli/fork';
import { getTaskStatus, submitTask, waitForFinish } from '../support/grpc';
import { startTestStack, type TestStack } from '../support/stack';
import { itLeavesEveryTaskVerified, verifyFinishedTask } from '../support/verification';
import { runWeft } from '../support/weft-cli';

// `weft fork <task> --from-step N`: a new task that reuses the original's recorded model replies
// and tool results before step N (the model server is not asked for them) and runs the rest fresh.

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());

const chatRequestsAbout = (text: string) => stack.model.requests.filter((r) => r.path === '/v1/chat/completions' && JSON.stringify(r.body).includes(text));
const verified = (taskId: string) => verifyFinishedTask({ pool: stack.pool, store: stack.store, temporal: stack.temporal }, taskId);
const forkOf = (taskId: string, fromStep: number) =>
  forkTask({ pool: stack.pool, store: stack.store, temporal: stack.temporal, taskQueue: stack.taskQueue }, taskId, fromStep);

it('a fork reuses the steps before N, runs the rest fresh, and both runs verify clean', async () => {
  const query = `fork me ${Date.now()}`;
  stack.model.on(
    query,
    { toolCalls: [{ id: 'calc-1', name: 'calculator', arguments: '{"expression":"6*7"}' }], usage: { prompt_tokens: 30, completion_tokens: 10 } },
    { content: 'first answer: 42', usage: { prompt_tokens: 50, completion_tokens: 5 } },
    { content: 'second answer: forty-two', usage: { prompt_tokens: 50, completion_tokens: 7 } },
  );
  const original = await submitTask(stack.orchestrator, { query });
  expect(await waitForFinish(stack.orchestrator, original.task_id)).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'first answer: 42' });
  expect(chatRequestsAbout(query)).toHaveLength(2);

  // From step 2: step 1 and its calculator call are copied; only step 2 asks the model, with the copied transcript.
  const fromTwo = await forkOf(original.task_id, 2);
  const forkedStatus = await waitForFinish(stack.orchestrator, fromTwo);
  expect(forkedStatus).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'second answer: forty-two' });
  expect(forkedStatus.metrics?.token_usage?.total_tokens).toBe(57);
  const asked = chatRequestsAbout(query);
  expect(asked).toHaveLength(3);
  const freshStep = JSON.stringify(asked[2]!.body.messages);
  expect(freshStep).toContain('calc-1');
  expect(freshStep).toContain('42');

  // The fork's run says where it came from, and its stream says what was reused.
  expect((await stack.store.loadRun(fromTwo))?.labels).toMatchObject({ forked_from_task: original.task_id, forked_from_step: '2' });
  const { rows } = await stack.pool.query<{ event_type: string; message: string }>(
    'SELECT event_type, message FROM task_events WHERE workflow_id = $1 ORDER BY seq',
    [fromTwo],
  );
  expect(rows[0]!.message).toBe(`task started as a fork of ${original.task_id} from step 2`);
  expect(rows.map((row) => row.message)).toEqual(
    expect.arrayContaining([`step 1 reused from ${original.workflow_id}`, `reused from ${original.workflow_id}: {"value":42}`]),
  );
  expect(rows.some((row) => row.event_type === 'TOOL_INVOKED')).toBe(false);

  // From the step after the last: everything is reused, nothing is asked or spent.
  const cli = runWeft('fork', original.task_id, '--from-step', '3', '--task-queue', stack.taskQueue);
  expect(cli.code).toBe(0);
  const fromThree = /as (task-[\w-]+)/.exec(cli.stdout)![1]!;
  const replayed = await waitForFinish(stack.orchestrator, fromThree);
  expect(replayed).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'first answer: 42' });
  expect(replayed.metrics?.token_usage?.total_tokens ?? 0).toBe(0);
  expect(chatRequestsAbout(query)).toHaveLength(3);

  // The original keeps its records and its answer.
  expect(await getTaskStatus(stack.orchestrator, original.task_id)).toMatchObject({ result: 'first answer: 42' });
  for (const taskId of [original.task_id, fromTwo, fromThree]) expect(await verified(taskId)).toEqual([]);
});

it('refuses a step the task never reached, with the range it has', async () => {
  const query = `short task ${Date.now()}`;
  stack.model.on(query, { content: 'one step' });
  const original = await submitTask(stack.orchestrator, { query });
  await waitForFinish(stack.orchestrator, original.task_id);
  await expect(forkOf(original.task_id, 3)).rejects.toThrow(`--from-step must be 1 to 2: task ${original.task_id} recorded 1 model steps`);
  const cli = runWeft('fork', 'task-no-such-task', '--from-step', '1');
  expect([cli.code, cli.stderr.trim()]).toEqual([1, 'weft: task task-no-such-task is not in the store']);
});

itLeavesEveryTaskVerified(() => stack.everyTask());
