import { verifyTask } from '../../cli/verify';
import { RecordType } from '../../core/store';
import { resetRunIdOf } from '../../core/tasks/run/task-ref';
import { buildMessagesFromRunLog } from '../../core/transcript';
import { submitTask, waitForFinish } from '../support/grpc';
import { eventTypes, taskDetails } from '../support/orchestration';
import { beforeModelStep, resetWorkflowTo } from '../support/resets';
import { startTestStack, type TestStack } from '../support/stack';
import { itLeavesEveryTaskVerified } from '../support/verification';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ settings: { stepsPerHistory: 2 } });
});
afterAll(() => stack.stop());

const unique = (label: string) => `${label} ${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
const requestsMatching = (text: string) => stack.model.requests.filter((r) => JSON.stringify(r.body).includes(text));

describe('routing', () => {
  it('SIMPLE: an arithmetic query goes straight to the calculator, no model call', async () => {
    const submitted = await submitTask(stack.orchestrator, { query: '(2 + 3) * 4', auto_decompose: true });
    const status = await waitForFinish(stack.orchestrator, submitted.task_id);
    expect(status).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: '{"value":20}' });
    expect(status.metrics?.mode).toBe('EXECUTION_MODE_SIMPLE');
    expect(requestsMatching('(2 + 3) * 4')).toHaveLength(0);
    expect(await eventTypes(stack.pool, submitted.workflow_id)).toEqual([
      'WORKFLOW_STARTED',
      'STATUS_UPDATE',
      'TOOL_INVOKED:main',
      'TOOL_OBSERVATION:main',
      'WORKFLOW_COMPLETED',
    ]);
  });

  it('SIMPLE: the same question again is answered from the cache, marked as a cache hit', async () => {
    const query = unique('What is the boiling point of water at sea level?');
    stack.model.on((text) => text.includes('Classify the task') && text.includes(query), {
      content:
        '{"recommended_mode":"STANDARD","complexity_score":0.1,"required_capabilities":[],"estimated_agents":1,"estimated_tokens":100,"estimated_cost_usd":0,"reasoning":"one fact"}',
    });
    stack.model.on(query, { content: '100 °C' });
    const first = await submitTask(stack.orchestrator, { query, auto_decompose: true });
    // SubmitTask answers once routing has decided, with the mode and score it chose.
    expect(first.decomposition).toMatchObject({ mode: 'EXECUTION_MODE_STANDARD', complexity_score: 0.1, agent_tasks: [] });
    expect((await waitForFinish(stack.orchestrator, first.task_id)).result).toBe('100 °C');
    const second = await submitTask(stack.orchestrator, { query: `  ${query.toUpperCase()} `, auto_decompose: true });
    expect(second.decomposition?.mode).toBe('EXECUTION_MODE_SIMPLE');
    const cached = await waitForFinish(stack.orchestrator, second.task_id);
    expect(cached).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: '100 °C' });
    expect(cached.metrics).toMatchObject({ mode: 'EXECUTION_MODE_SIMPLE', cache_hit: true });
    expect(requestsMatching(query).filter((r) => !JSON.stringify(r.body).includes('Classify'))).toHaveLength(1);
  });

  it('STANDARD with tools: tool calls run as activities and their results go back to the model', async () => {
    const query = unique('Use the calculator for 6*7');
    stack.model.on(query, { toolCalls: [{ id: 'call-1', name: 'calculator', arguments: '{"expression":"6*7"}' }] }, { content: 'It is 42.' });
    const submitted = await submitTask(stack.orchestrator, { query });
    const status = await waitForFinish(stack.orchestrator, submitted.task_id);
    expect(status).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'It is 42.' });
    const second = requestsMatching(query)[1]!.body as { messages: Array<{ role: string; content: string; tool_call_id?: string }> };
    expect(second.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'call-1', content: '{"value":42}' });
    const transcript = await buildMessagesFromRunLog(stack.store, submitted.workflow_id);
    expect(transcript.map((m) => [m.role, m.parts.map((p) => p.kind)])).toEqual([
      ['user', ['text']],
      ['assistant', ['tool_use']],
      ['user', ['tool_result']],
      ['assistant', ['text']],
    ]);
    // The single agent is an agent too, as in the seed's stream: started, completed, and in agent_statuses.
    expect(await eventTypes(stack.pool, submitted.workflow_id)).toEqual([
      'WORKFLOW_STARTED',
      'AGENT_STARTED:main',
      'TOOL_INVOKED:main',
      'TOOL_OBSERVATION:main',
      'AGENT_COMPLETED:main',
      'WORKFLOW_COMPLETED',
    ]);
    const details = await taskDetails(stack.orchestrator, submitted.task_id);
    expect(details.agent_statuses).toEqual([expect.objectContaining({ agent_id: 'main', status: 'TASK_STATUS_COMPLETED', result: 'It is 42.' })]);
    expect(details.metrics?.agents_used).toBe(1);
  });

  it('a long agent loop continues as new and still finishes with every step once', async () => {
    const query = unique('count with the calculator three times');
    const call = (id: string) => ({ toolCalls: [{ id, name: 'calculator', arguments: '{"expression":"1+1"}' }] });
    stack.model.on(query, call('c1'), call('c2'), call('c3'), { content: 'done counting' });
    const submitted = await submitTask(stack.orchestrator, { query });
    const status = await waitForFinish(stack.orchestrator, submitted.task_id);
    expect(status).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'done counting' });
    const runs = [];
    for await (const run of stack.temporal.workflow.list({ query: `WorkflowId = "${submitted.workflow_id}"` })) runs.push(run.status.name);
    expect(runs.filter((s) => s === 'CONTINUED_AS_NEW').length).toBeGreaterThanOrEqual(1);
    expect(requestsMatching(query)).toHaveLength(4);
    // Every step offers the tools the task started with, in the continued history too.
    const offered = requestsMatching(query).map((r) => ((r.body as { tools?: Array<{ function: { name: string } }> }).tools ?? []).map((t) => t.function.name));
    for (const names of offered) expect(names).toContain('calculator');
    const records = (await stack.store.listRunRecords(submitted.workflow_id, '', 100)).records;
    expect(records.filter((r) => r.type === 'tool_result')).toHaveLength(3);
    expect(records.filter((r) => r.type === RecordType.RunStarted)).toHaveLength(1);
  });

  it('a long agent loop reset in its continued history gets a new store run that starts with every step before the point', async () => {
    const query = unique('count three times, then reset');
    const call = (id: string) => ({ toolCalls: [{ id, name: 'calculator', arguments: '{"expression":"1+1"}' }] });
    stack.model.on(query, call('c1'), call('c2'), call('c3'), { content: 'done counting' }, { content: 'counted again' });
    const submitted = await submitTask(stack.orchestrator, { query });
    expect(await waitForFinish(stack.orchestrator, submitted.task_id)).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'done counting' });

    // The latest history holds steps 3 and 4: the reset goes back to before step 4.
    const temporalRunId = await resetWorkflowTo(stack.temporal, submitted.workflow_id, beforeModelStep(2));
    await stack.temporal.workflow.getHandle(submitted.workflow_id, temporalRunId).result();
    expect(await waitForFinish(stack.orchestrator, submitted.task_id)).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'counted again' });
    expect(requestsMatching(query)).toHaveLength(5);
    const newRun = resetRunIdOf(submitted.workflow_id, temporalRunId);
    const names = (await stack.store.listRunRecords(newRun, '', 100)).records.map((r) => r.key.slice(newRun.length + 1));
    expect(names).toEqual([
      'started',
      'seed',
      'step-0/reply',
      'step-1/tool-results',
      'step-1/reply',
      'step-2/tool-results',
      'step-2/reply',
      'tool/c3',
      'step-3/tool-results',
      'step-3/reply',
      'completed',
    ]);
    // The step before the point is answered from the copied transcript: the fresh request saw all three results.
    expect(JSON.stringify(requestsMatching(query).at(-1)!.body).match(/"role":"tool"/g)).toHaveLength(3);
    expect(await verifyTask({ pool: stack.pool, store: stack.store, temporal: stack.temporal }, submitted.task_id)).toEqual([]);
  });

  it('budget: the step that crosses token_budget ends the task BUDGET_EXCEEDED with the usage recorded', async () => {
    const query = unique('spend too much');
    stack.model.on(
      query,
      { toolCalls: [{ id: 'b1', name: 'calculator', arguments: '{"expression":"1"}' }], usage: { prompt_tokens: 40, completion_tokens: 30 } },
      { content: 'never' },
    );
    const submitted = await submitTask(stack.orchestrator, { query, metadata: { token_budget: 50 } });
    const status = await waitForFinish(stack.orchestrator, submitted.task_id);
    expect(status.status).toBe('TASK_STATUS_FAILED');
    expect(status.error_message).toMatch(/^BUDGET_EXCEEDED: task used 70 tokens of its 50 token budget/);
    expect(status.metrics?.token_usage?.total_tokens).toBe(70);
    expect(requestsMatching(query)).toHaveLength(1);
    const types = await eventTypes(stack.pool, submitted.workflow_id);
    expect(types.slice(-3)).toEqual(['BUDGET_EXCEEDED', 'ERROR_OCCURRED', 'WORKFLOW_FAILED']);
  });
});

describe('COMPLEX', () => {
  const plan = (prefix: string) => ({
    agent_tasks: [
      { agent_id: 'alpha', description: `${prefix} gather alpha`, model_tier: 'MODEL_TIER_SMALL' as const },
      { agent_id: 'beta', description: `${prefix} gather beta` },
      { agent_id: 'gamma', description: `${prefix} combine`, dependencies: ['alpha', 'beta'], model_tier: 'MODEL_TIER_LARGE' as const },
    ],
  });

  it('runs independent agents in parallel, the dependent one after both, then synthesises', async () => {
    const prefix = unique('dag');
    stack.model.on(`${prefix} gather alpha`, { content: 'alpha result', delayMs: 700 });
    stack.model.on(`${prefix} gather beta`, { content: 'beta result', delayMs: 700 });
    stack.model.on(`${prefix} combine`, { content: 'gamma result' });
    stack.model.on((text) => text.includes('Combine these results') && text.includes(prefix), { content: 'final answer' });

    const submitted = await submitTask(stack.orchestrator, { query: `${prefix} task`, manual_decomposition: plan(prefix) });
    expect(submitted.decomposition?.agent_tasks.map((a) => a.agent_id)).toEqual(['alpha', 'beta', 'gamma']);
    const status = await waitForFinish(stack.orchestrator, submitted.task_id);
    expect(status).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'final answer' });

    // Overlapping activity times of the two independent agents, from their own histories.
    const window = async (agent: string) => {
      const history = await stack.temporal.workflow.getHandle(`${submitted.workflow_id}/agent/${agent}`).fetchHistory();
      const times = (history.events ?? [])
        .filter((e) => e.activityTaskStartedEventAttributes || e.activityTaskCompletedEventAttributes)
        .map((e) => Number(e.eventTime!.seconds) * 1000 + Math.floor((e.eventTime!.nanos ?? 0) / 1e6));
      return { start: Math.min(...times), end: Math.max(...times) };
    };
    const [alpha, beta, gamma] = await Promise.all([window('alpha'), window('beta'), window('gamma')]);
    expect(alpha.start < beta.end && beta.start < alpha.end).toBe(true);
    expect(gamma.start).toBeGreaterThanOrEqual(Math.max(alpha.end, beta.end));

    // gamma received both results; the tiers picked the models.
    const gammaRequest = requestsMatching(`${prefix} combine`)[0]!.body;
    expect(JSON.stringify(gammaRequest)).toContain('alpha result');
    expect(JSON.stringify(gammaRequest)).toContain('beta result');
    expect(gammaRequest.model).toBe('scripted-large');
    expect(requestsMatching(`${prefix} gather alpha`)[0]!.body.model).toBe('scripted-small');

    const types = await eventTypes(stack.pool, submitted.workflow_id);
    expect(types[0]).toBe('WORKFLOW_STARTED');
    expect(types[1]).toBe('DECOMPOSITION_COMPLETED');
    expect(types.indexOf('AGENT_STARTED:gamma')).toBeGreaterThan(Math.max(types.indexOf('AGENT_COMPLETED:alpha'), types.indexOf('AGENT_COMPLETED:beta')));
    expect(types.at(-1)).toBe('WORKFLOW_COMPLETED');

    const parentLog = (await stack.store.listRunRecords(submitted.workflow_id, '', 100)).records;
    expect(parentLog.filter((r) => r.type === RecordType.ChildRunLinked)).toHaveLength(3);
    for (const agent of ['alpha', 'beta', 'gamma']) {
      expect((await stack.store.loadRun(`${submitted.workflow_id}/agent/${agent}`)).status).toBe('completed');
    }
    const details = await taskDetails(stack.orchestrator, submitted.task_id);
    expect(details.agent_statuses.map((a) => [a.agent_id, a.status, a.result])).toEqual([
      ['alpha', 'TASK_STATUS_COMPLETED', 'alpha result'],
      ['beta', 'TASK_STATUS_COMPLETED', 'beta result'],
      ['gamma', 'TASK_STATUS_COMPLETED', 'gamma result'],
    ]);
    expect(details.metrics).toMatchObject({ agents_used: 3, mode: 'EXECUTION_MODE_COMPLEX' });
  });

  it('auto-decomposes with the model, asking once more with the errors of an invalid plan', async () => {
    const query = unique('Research the market and compare the vendors');
    stack.model.on((text) => text.includes('Classify the task') && text.includes(query), {
      content:
        '{"recommended_mode":"COMPLEX","complexity_score":0.8,"required_capabilities":["research"],"estimated_agents":2,"estimated_tokens":3000,"estimated_cost_usd":0.01,"reasoning":"two parts"}',
    });
    stack.model.on(
      (text) => text.includes('Split the task') && text.includes(query),
      { content: '{"agents":[{"id":"a","description":"x","dependencies":["b"]},{"id":"b","description":"y","dependencies":["a"]}]}' },
      {
        content:
          '```json\n{"agents":[{"id":"market","description":"research the market"},{"id":"vendors","description":"compare the vendors","dependencies":["market"]}]}\n```',
      },
    );
    stack.model.on('Your part: research the market', { content: 'market notes' });
    stack.model.on('Your part: compare the vendors', { content: 'vendor table' });
    stack.model.on((text) => text.includes('Combine these results') && text.includes(query), { content: 'the report' });

    const submitted = await submitTask(stack.orchestrator, { query, auto_decompose: true });
    const status = await waitForFinish(stack.orchestrator, submitted.task_id);
    expect(status).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'the report' });
    const retry = requestsMatching(query).find((r) => JSON.stringify(r.body).includes('Your previous plan was invalid'));
    expect(JSON.stringify(retry?.body)).toContain('dependency cycle');
  });

  it('fails clearly when the plan is still invalid after the second answer', async () => {
    const query = unique('Plan, design and build a bridge, then evaluate it');
    stack.model.on((text) => text.includes('Classify the task') && text.includes(query), { status: 500, content: 'analysis down' });
    stack.model.on((text) => text.includes('Split the task') && text.includes(query), {
      content: '{"agents":[{"id":"x","description":"d","tools":["teleporter"]}]}',
    });
    const submitted = await submitTask(stack.orchestrator, { query, auto_decompose: true });
    const status = await waitForFinish(stack.orchestrator, submitted.task_id);
    expect(status.status).toBe('TASK_STATUS_FAILED');
    expect(status.error_message).toBe('could not decompose the task: agent x uses unknown tool teleporter');
    expect((await stack.store.loadRun(submitted.workflow_id)).status).toBe('failed');
  });

  it('says in words when the model answers a plan that is not JSON at all', async () => {
    const query = unique('Plan, design and build a tunnel, then evaluate it');
    stack.model.on((text) => text.includes('Classify the task') && text.includes(query), { status: 500, content: 'analysis down' });
    stack.model.on((text) => text.includes('Split the task') && text.includes(query), { content: 'Sure! First we dig, then we line the walls.' });
    const submitted = await submitTask(stack.orchestrator, { query, auto_decompose: true });
    const status = await waitForFinish(stack.orchestrator, submitted.task_id);
    expect(status.status).toBe('TASK_STATUS_FAILED');
    expect(status.error_message).toBe(
      'could not decompose the task: the answer is not JSON (it begins "Sure! First we dig, then we line the walls."); a plan is {"agents": [...]}',
    );
  });
});

itLeavesEveryTaskVerified(() => stack.everyTask());
