import { Registry } from 'prom-client';
import { listTaskEvents } from '../../core/events/event-log';
import { createTaskMetrics } from '../../core/telemetry/task-metrics';
import { submitTask, waitForFinish } from '../support/grpc';
import { startTestStack, TEST_MODELS, type TestStack } from '../support/stack';
import { testCatalog } from '../support/test-catalog';
import { itLeavesEveryTaskVerified } from '../support/verification';

// Plans and verdicts as real models write them: in prose, in fences, with keys nobody asked for and
// tiers in lower case. Weft reads them leniently, says what it forgave (in the task's events and a
// metric), repairs what it cannot read, and asks for a JSON schema where the provider enforces one.

const registry = new Registry();
let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({
    observer: createTaskMetrics(registry),
    // The small model (complexity analysis) enforces JSON schemas; the planner's (MEDIUM) does not.
    catalog: (baseURL) =>
      testCatalog(baseURL, (document) => {
        for (const model of document.models) if (model.id === TEST_MODELS.SMALL) model.supports_json_schema = true;
      }),
  });
});
afterAll(() => stack.stop());

const unique = (label: string) => `${label} ${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
const asking = (prompt: string, query: string) =>
  stack.model.requests.filter((r) => JSON.stringify(r.body).includes(prompt) && JSON.stringify(r.body).includes(query));
const readings = async () => (await registry.getMetricsAsJSON()).find((m) => m.name === 'weft_model_output_readings_total')?.values ?? [];
const readingCount = async (kind: string, outcome: string) =>
  (await readings()).find((v) => v.labels.kind === kind && v.labels.outcome === outcome)?.value ?? 0;

function scriptAgents(query: string) {
  stack.model.on('Your part: gather the facts', { content: 'the facts' });
  stack.model.on('Your part: write the summary', { content: 'the summary' });
  stack.model.on((text) => text.includes('Combine these results') && text.includes(query), { content: 'the combined report' });
}

it('runs a COMPLEX task whose verdict and plan come in prose, fences, extra keys and lower case, without a repair round', async () => {
  const query = unique('Research the harbour, then compare and summarise its history');
  stack.model.on((text) => text.includes('Classify the task') && text.includes(query), {
    content:
      'Sure:\n```json\n{"Recommended_Mode":"complex","complexity_score":0.9,"required_capabilities":["research"],"estimated_agents":2,"estimated_tokens":2000,"estimated_cost_usd":0.01,"reasoning":"two parts","confidence":"high"}\n```',
  });
  stack.model.on((text) => text.includes('Split the task') && text.includes(query), {
    content:
      'Here is the plan I came up with: {"agents": [{"id": "facts", "description": "gather the facts", "tier": "small", "rationale": "first things first"}, ' +
      '{"id": "summary", "task": "write the summary", "depends_on": ["facts"], "tier": "Medium"}], "notes": "two agents suffice"}. Let me know!',
  });
  scriptAgents(query);
  const [verdictsBefore, plansBefore] = [await readingCount('verdict', 'lenient'), await readingCount('plan', 'lenient')];

  const submitted = await submitTask(stack.orchestrator, { query, auto_decompose: true });
  expect(await waitForFinish(stack.orchestrator, submitted.task_id)).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'the combined report' });
  expect(asking('Split the task', query)).toHaveLength(1); // no repair round
  expect(asking('Your previous plan was invalid', query)).toHaveLength(0);
  expect(await readingCount('verdict', 'lenient')).toBe(verdictsBefore + 1);
  expect(await readingCount('plan', 'lenient')).toBe(plansBefore + 1);

  const events = await listTaskEvents(stack.pool, submitted.workflow_id);
  const routing = events.find((e) => e.type === 'STATUS_UPDATE' && e.message.startsWith('mode '))!;
  expect(routing.message).toMatch(
    /^mode COMPLEX \(score 0.9, model\): two parts \(the model's verdict was read leniently: .*read Recommended_Mode as recommended_mode/,
  );
  expect(routing.message).toContain('dropped unknown key confidence');
  const plan = events.find((e) => e.type === 'DECOMPOSITION_COMPLETED')!;
  expect(plan.payload).toMatchObject({
    plan: {
      agents: [
        { id: 'facts', tier: 'SMALL' },
        { id: 'summary', description: 'write the summary', dependencies: ['facts'], tier: 'MEDIUM' },
      ],
    },
    reading: { outcome: 'lenient' },
  });
  expect((plan.payload.reading as { notes: string[] }).notes).toEqual(
    expect.arrayContaining([
      'the JSON object was read from inside prose',
      'dropped unknown key agents[0].rationale',
      'read agents[0].tier "small" as SMALL',
      'read agents[1].task as description',
      'dropped unknown key notes',
    ]),
  );

  // The small model's provider enforces schemas: the verdict was asked for with one; the planner's was not.
  expect(asking('Classify the task', query)[0]!.body.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'complexity_verdict' } });
  expect(asking('Split the task', query)[0]!.body.response_format).toBeUndefined();
});

it('counts a plan that needed the repair round as repaired, and tells the model exactly what was wrong', async () => {
  const query = unique('Research the lighthouse, then compare and summarise its keepers');
  stack.model.on((text) => text.includes('Classify the task') && text.includes(query), { status: 500, content: 'analysis down' });
  stack.model.on(
    (text) => text.includes('Split the task') && text.includes(query),
    { content: '{"agents":[{"id":"facts","description":"gather the facts","tier":"HUGE"}]}' },
    { content: '{"agents":[{"id":"facts","description":"gather the facts"},{"id":"summary","description":"write the summary","dependencies":["facts"]}]}' },
  );
  scriptAgents(query);
  const before = await readingCount('plan', 'repaired');
  const submitted = await submitTask(stack.orchestrator, { query, auto_decompose: true });
  expect(await waitForFinish(stack.orchestrator, submitted.task_id)).toMatchObject({ status: 'TASK_STATUS_COMPLETED' });
  const repair = JSON.stringify(asking('Your previous plan was invalid', query)[0]!.body);
  expect(repair).toContain('agents.0.tier');
  expect(await readingCount('plan', 'repaired')).toBe(before + 1);
  const plan = (await listTaskEvents(stack.pool, submitted.workflow_id)).find((e) => e.type === 'DECOMPOSITION_COMPLETED')!;
  expect(plan.payload.reading).toMatchObject({ outcome: 'repaired' });
  expect(plan.message).toContain("the model's plan was valid after a repair round");
});

it('says so when a verdict cannot be read and the heuristic decides', async () => {
  const query = unique('What is the tallest tree in the park?');
  stack.model.on((text) => text.includes('Classify the task') && text.includes(query), { content: 'I think this is a fairly simple question.' });
  stack.model.on(query, { content: 'The oak.' });
  const before = await readingCount('verdict', 'failed');
  const submitted = await submitTask(stack.orchestrator, { query, auto_decompose: true });
  expect(await waitForFinish(stack.orchestrator, submitted.task_id)).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'The oak.' });
  expect(await readingCount('verdict', 'failed')).toBe(before + 1);
  const routing = (await listTaskEvents(stack.pool, submitted.workflow_id)).find((e) => e.type === 'STATUS_UPDATE' && e.message.startsWith('mode '))!;
  expect(routing.message).toMatch(
    /^mode STANDARD \(score [\d.]+, heuristic\): .* \(the model's verdict was unreadable, so the heuristic decided: the answer is not JSON/,
  );
});

itLeavesEveryTaskVerified(() => stack.everyTask());
