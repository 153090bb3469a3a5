import { randomUUID } from 'node:crypto';
import { loadConfig } from '../../core/config';
import { submitTask, waitForFinish } from '../support/grpc';
import { startTestStack, type TestStack } from '../support/stack';
import { itLeavesEveryTaskVerified } from '../support/verification';

// The seed's budget settings (MAX_TOKENS_PER_REQUEST, TOKEN_BUDGET_PER_TASK, TOKEN_BUDGET_PER_AGENT,
// MAX_COST_PER_REQUEST) are enforced under their own names, as aliases of Weft's.

it("reads the seed's names as aliases of Weft's budget settings, Weft's name winning", () => {
  expect(loadConfig({ TOKEN_BUDGET_PER_TASK: '20000', TOKEN_BUDGET_PER_AGENT: '5000', MAX_COST_PER_REQUEST: '0.50' }).task).toMatchObject({
    taskTokenBudget: 20000,
    agentTokenBudget: 5000,
    taskCostLimitUsd: 0.5,
  });
  expect(loadConfig({ MAX_TOKENS_PER_REQUEST: '10000' }).task.taskTokenBudget).toBe(10000);
  expect(
    loadConfig({ WEFT_TASK_COST_LIMIT_USD: '2', MAX_COST_PER_REQUEST: '0.5', WEFT_TASK_TOKEN_BUDGET: '300', TOKEN_BUDGET_PER_TASK: '100' }).task,
  ).toMatchObject({ taskCostLimitUsd: 2, taskTokenBudget: 300 });
  expect(loadConfig({}).task).toMatchObject({ taskTokenBudget: 0, agentTokenBudget: 0, taskCostLimitUsd: 0 });
  expect(() => loadConfig({ MAX_COST_PER_REQUEST: 'half a dollar' })).toThrow('MAX_COST_PER_REQUEST');
});

describe('a deployment configured with MAX_TOKENS_PER_REQUEST=50', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ settings: loadConfig({ MAX_TOKENS_PER_REQUEST: '50' }).task });
  });
  afterAll(() => stack.stop());

  it.each([
    ['without a budget of its own', {}],
    ['asking for a larger budget than the deployment allows', { token_budget: 1000 }],
  ])('ends a task %s BUDGET_EXCEEDED at the configured limit', async (_how, metadata) => {
    const query = `spend more than allowed ${randomUUID()}`;
    stack.model.on(
      query,
      { toolCalls: [{ id: 'b1', name: 'calculator', arguments: '{"expression":"1"}' }], usage: { prompt_tokens: 40, completion_tokens: 30 } },
      { content: 'never' },
    );
    const submitted = await submitTask(stack.orchestrator, { query, metadata });
    expect(await waitForFinish(stack.orchestrator, submitted.task_id)).toMatchObject({
      status: 'TASK_STATUS_FAILED',
      error_message: expect.stringMatching(/^BUDGET_EXCEEDED: task used 70 tokens of its 50 token budget/),
    });
  });

  it('lets a request lower the limit: a step whose prompt alone would pass it is refused before the model is called', async () => {
    const query = `spend a little ${randomUUID()}`;
    stack.model.on(query, { content: 'short' });
    const submitted = await submitTask(stack.orchestrator, { query, metadata: { token_budget: 20 } });
    expect(await waitForFinish(stack.orchestrator, submitted.task_id)).toMatchObject({
      status: 'TASK_STATUS_FAILED',
      error_message: expect.stringMatching(/^BUDGET_EXCEEDED: task used 0 tokens of its 20 token budget; the next step needs about \d+$/),
    });
    expect(stack.model.requests.filter((r) => JSON.stringify(r.body).includes(query))).toHaveLength(0);
  });

  itLeavesEveryTaskVerified(() => stack.everyTask());
});
