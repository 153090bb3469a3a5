import { randomUUID } from 'node:crypto';
import { Worker } from '@temporalio/worker';
import { submitTask, waitForFinish } from '../support/grpc';
import { startTestStack, testToolRegistry, type TestStack } from '../support/stack';
import { toolMetadata } from '../../core/tools/tool';
import { jsonToStruct } from '../../api/grpc/struct';
import { testCatalog } from '../support/test-catalog';
import { itLeavesEveryTaskVerified } from '../support/verification';

// Budgets that hold with agents in parallel: each model step reserves its prompt before the call,
// against what was spent plus what other steps hold, and settles with its usage. The nesting: a
// tenant's daily budget holds its tasks', a task's holds its agents'.

const step = { prompt_tokens: 40, completion_tokens: 20 };
const spentOf = async (stack: TestStack, taskId: string) =>
  (await stack.pool.query<{ total_tokens: string }>('SELECT total_tokens FROM task_usage WHERE task_id = $1', [taskId])).rows.map((row) =>
    Number(row.total_tokens),
  );
const reservationsOf = async (stack: TestStack, taskId: string) =>
  (
    await stack.pool.query<{ step_key: string; tokens: string; settled: boolean }>(
      'SELECT step_key, tokens, settled_at IS NOT NULL AS settled FROM budget_reservations WHERE task_id = $1 ORDER BY reserved_at, step_key',
      [taskId],
    )
  ).rows;

describe('a task budget two agents share', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(() => stack.stop());

  it('is never overspent by more than one step of each agent, and every reservation is settled', async () => {
    const prefix = `parallel ${randomUUID()}`;
    const loop = (n: number) => [
      ...Array.from({ length: n }, (_, i) => ({ toolCalls: [{ id: `c${i}`, name: 'calculator', arguments: '{"expression":"1+1"}' }], usage: step })),
      { content: 'done', usage: step },
    ];
    stack.model.on(`${prefix} count apples`, ...loop(8));
    stack.model.on(`${prefix} count pears`, ...loop(8));
    const budget = 400;
    const submitted = await submitTask(stack.orchestrator, {
      query: `${prefix} count fruit`,
      metadata: { token_budget: budget },
      manual_decomposition: {
        agent_tasks: [
          { agent_id: 'apples', description: `${prefix} count apples` },
          { agent_id: 'pears', description: `${prefix} count pears` },
        ],
      },
    });
    const status = await waitForFinish(stack.orchestrator, submitted.task_id);
    expect(status).toMatchObject({ status: 'TASK_STATUS_FAILED', error_message: expect.stringMatching(/^BUDGET_EXCEEDED/) });
    const steps = await spentOf(stack, submitted.task_id);
    const total = steps.reduce((sum, tokens) => sum + tokens, 0);
    expect(total).toBeLessThanOrEqual(budget + 2 * Math.max(...steps));
    const reservations = await reservationsOf(stack, submitted.task_id);
    expect(reservations.length).toBeGreaterThan(0);
    expect(reservations.every((r) => r.settled)).toBe(true);
  });

  it('reserves nothing again when the workflow replays', async () => {
    const query = `replay a budgeted task ${randomUUID()}`;
    stack.model.on(query, { content: 'answered', usage: step });
    const submitted = await submitTask(stack.orchestrator, { query, metadata: { token_budget: 1000 } });
    expect((await waitForFinish(stack.orchestrator, submitted.task_id)).status).toBe('TASK_STATUS_COMPLETED');
    const before = await reservationsOf(stack, submitted.task_id);
    expect(before).toHaveLength(1);
    const history = await stack.temporal.workflow.getHandle(submitted.workflow_id).fetchHistory();
    await Worker.runReplayHistory({ workflowBundle: { codePath: process.env.WEFT_TEST_WORKFLOW_BUNDLE! } }, history, submitted.workflow_id);
    expect(await reservationsOf(stack, submitted.task_id)).toEqual(before);
  });

  itLeavesEveryTaskVerified(() => stack.everyTask());
});

describe('a retried step', () => {
  let stack: TestStack;
  beforeAll(async () => {
    // One attempt per model call: a failed call fails the activity, and Temporal retries the step.
    stack = await startTestStack({ catalog: (baseURL) => testCatalog(baseURL, (doc) => Object.assign(doc.resilience, { max_attempts: 1 })) });
  });
  afterAll(() => stack.stop());

  it("is reserved once: its earlier attempt's reservation is its own, not a second claim on the budget", async () => {
    // Long enough that its prompt always counts well over the step's 30 tokens, whatever the uuid's tokenization.
    const query = `retry this step within a tight token budget, once its first model call has failed ${randomUUID()}`;
    // A first task learns what this prompt reserves.
    const small = { prompt_tokens: 20, completion_tokens: 10 };
    stack.model.on(query, { content: 'first', usage: small }, { status: 503, content: 'busy' }, { content: 'second', usage: small });
    const probe = await submitTask(stack.orchestrator, { query, metadata: { token_budget: 10_000 } });
    await waitForFinish(stack.orchestrator, probe.task_id);
    const reserved = Number((await reservationsOf(stack, probe.task_id))[0]!.tokens);

    // Room for one reservation of it (and the step's 30 tokens), not two: counting the failed
    // attempt again would refuse the retry.
    expect(reserved).toBeGreaterThan(30);
    const submitted = await submitTask(stack.orchestrator, { query, metadata: { token_budget: Math.floor(reserved * 1.5) } });
    const finished = await waitForFinish(stack.orchestrator, submitted.task_id);
    expect([finished.status, finished.result, finished.error_message]).toEqual(['TASK_STATUS_COMPLETED', 'second', '']);
    const reservations = await reservationsOf(stack, submitted.task_id);
    expect(reservations).toEqual([{ step_key: expect.stringContaining('/step-0/reply'), tokens: String(reserved), settled: true }]);
  });

  itLeavesEveryTaskVerified(() => stack.everyTask());
});

describe("a tenant's daily budget", () => {
  let stack: TestStack;
  beforeAll(async () => {
    // Priced models ($0.001 a token), and a tenant allowed $0.15 a day.
    const priced = (baseURL: string) =>
      testCatalog(baseURL, (doc) => doc.models.forEach((model) => Object.assign(model, { prompt_per_1k: 1, completion_per_1k: 1 })));
    stack = await startTestStack({ catalog: priced, settings: { tenantDailyCostLimitUsd: 0.15 } });
  });
  afterAll(() => stack.stop());

  it('caps the sum of its tasks: once they have spent it, the next task is refused before its model call', async () => {
    const query = `tenant spends ${randomUUID()}`;
    // $0.14 spent leaves $0.01: less than any next step's prompt (its query alone is over 10 tokens;
    // $0.12 left $0.03, which a short tokenization of the query's uuid could fit under).
    stack.model.on(query, { content: 'first answer', usage: { prompt_tokens: 100, completion_tokens: 40 } });
    const first = await submitTask(stack.orchestrator, { query });
    expect(await waitForFinish(stack.orchestrator, first.task_id)).toMatchObject({ status: 'TASK_STATUS_COMPLETED' });

    const next = `tenant is out of money ${randomUUID()}`;
    stack.model.on(next, { content: 'never' });
    const second = await submitTask(stack.orchestrator, { query: next });
    expect(await waitForFinish(stack.orchestrator, second.task_id)).toMatchObject({
      status: 'TASK_STATUS_FAILED',
      error_message: expect.stringMatching(/^BUDGET_EXCEEDED: tenant spent \$0\.1400 of its \$0\.15 daily budget; the next step needs about \$0\.0\d+$/),
    });
    expect(stack.model.requests.filter((r) => JSON.stringify(r.body).includes(next))).toHaveLength(0);
  });

  itLeavesEveryTaskVerified(() => stack.everyTask());
});

describe('a priced tool under a task cost limit', () => {
  let stack: TestStack;
  let runs = 0;
  beforeAll(async () => {
    const tools = testToolRegistry();
    tools.add([
      {
        ...toolMetadata({
          name: 'paid_lookup',
          version: '1.0.0',
          description: 'costs $0.50 a call',
          category: 'test',
          parameters: { type: 'object' },
          costPerUse: 0.5,
        }),
        execute: async () => ++runs,
      },
    ]);
    stack = await startTestStack({ tools, settings: { taskCostLimitUsd: 1 } });
  });
  afterAll(() => stack.stop());

  it("reserves each call's cost before running it: of three parallel calls, the one the limit cannot take is not made", async () => {
    const query = `three paid lookups ${randomUUID()}`;
    const call = (id: string) => ({ id, name: 'paid_lookup', arguments: '{}' });
    stack.model.on(query, { toolCalls: [call('p1'), call('p2'), call('p3')] }, { content: 'two lookups were enough' });
    const submitted = await submitTask(stack.orchestrator, { query });
    const status = await waitForFinish(stack.orchestrator, submitted.task_id);
    expect(status).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'two lookups were enough', metrics: { token_usage: { cost_usd: 1 } } });
    expect(runs).toBe(2);
    const refused = await stack.pool.query<{ message: string }>(
      `SELECT message FROM task_events WHERE workflow_id = $1 AND event_type = 'TOOL_OBSERVATION' AND message LIKE '%not run%'`,
      [submitted.workflow_id],
    );
    expect(refused.rows.map((r) => r.message)).toEqual([
      'validation error: not run: task cost $1.0000 of its $1 cost limit; the next step needs about $0.5000',
    ]);
    expect((await reservationsOf(stack, submitted.task_id)).every((r) => r.settled)).toBe(true);
  });

  it("takes a lower limit from the request's context.cost_limit_usd, never a higher one", async () => {
    const call = (id: string) => ({ id, name: 'paid_lookup', arguments: '{}' });
    const costOf = async (costLimit: number) => {
      const query = `paid lookups under ${costLimit} ${randomUUID()}`;
      stack.model.on(query, { toolCalls: [call('q1'), call('q2'), call('q3')] }, { content: 'enough' });
      const submitted = await submitTask(stack.orchestrator, { query, context: jsonToStruct({ cost_limit_usd: costLimit }) });
      return (await waitForFinish(stack.orchestrator, submitted.task_id)).metrics?.token_usage?.cost_usd;
    };
    expect(await costOf(0.5)).toBe(0.5);
    expect(await costOf(5)).toBe(1);
  });

  itLeavesEveryTaskVerified(() => stack.everyTask());
});
