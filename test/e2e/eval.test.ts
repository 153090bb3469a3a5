import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WorkflowNotFoundError } from '@temporalio/client';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { ScriptedReply } from '../model-server/scripted-model-server';
import { callUnary, unaryCall } from '../../protos/clients';
import { jsonToStruct } from '../../api/grpc/struct';
import type { ListTasksRequest } from '../../protos/generated/shannon/orchestrator/ListTasksRequest';
import type { ListTasksResponse__Output } from '../../protos/generated/shannon/orchestrator/ListTasksResponse';
import type { EvalReport } from '../../core/eval/eval-report';
import { evalKey } from '../../workflows/search-attributes';
import { submitTask, waitForFinish } from '../support/grpc';
import { startSideEffectPeer, toolsWithSideEffects, type SideEffectPeer } from '../support/side-effect-peer';
import { startTestStack, type TestStack } from '../support/stack';
import { testCatalog } from '../support/test-catalog';
import { itLeavesEveryTaskVerified } from '../support/verification';
import { shannonCaller } from '../support/shannon-http';
import { weft } from '../support/weft-cli';

// `weft eval`: recorded tasks run again under changed model answers, their tool calls answered from
// the record (the side-effect peer sees no new request), scored against the recorded answers, with
// token and cost deltas, the steps that diverged, and a gate CI can fail on.

let stack: TestStack;
let peer: SideEffectPeer;
beforeAll(async () => {
  peer = await startSideEffectPeer();
  stack = await startTestStack({
    tools: await toolsWithSideEffects(peer.base),
    // Priced, so that cost deltas are visible.
    catalog: (baseURL) => testCatalog(baseURL, (doc) => doc.models.forEach((model) => Object.assign(model, { prompt_per_1k: 1, completion_per_1k: 2 }))),
  });
});
afterAll(async () => {
  await stack.stop();
  await peer.stop();
});

const listTasks = (request: ListTasksRequest) =>
  callUnary<ListTasksRequest, ListTasksResponse__Output>(stack.orchestrator.ListTasks, stack.orchestrator, request);
const bookings = () => peer.requests.filter((r) => r.path === '/api/bookings').length;
const toolResultOf = (id: string) => (_text: string, body: Record<string, unknown>) => JSON.stringify(body.messages).includes(`"tool_call_id":"${id}"`);

it('runs recorded tasks again with tool calls from the record, reports changed answers, scores and cost, gates, and deletes its tasks', async () => {
  const run = Date.now();
  const queries = { capital: `eval capital ${run}.`, sum: `eval sum ${run}.`, booking: `eval booking ${run}.` };
  let phase: 'record' | 'eval' = 'record';
  /** What the model answers in one phase; `calc` the calculator call's arguments as the model writes them, `suffix` its tool-call ids'. */
  const scriptPhase = (wanted: typeof phase, answers: { capital: [string, number]; sum: string; calc: string }, suffix: string) => {
    const during = (matches: (text: string, body: Record<string, unknown>) => boolean) => (text: string, body: Record<string, unknown>) =>
      phase === wanted && matches(text, body);
    const asks = (query: string) => (text: string) => text.includes(query);
    const usage = (completion: number) => ({ prompt_tokens: 30, completion_tokens: completion });
    // Answers after a tool result come first: the first matching rule answers.
    stack.model.on(during(toolResultOf(`sum-${suffix}`)), { content: answers.sum, usage: usage(3) });
    stack.model.on(during(toolResultOf(`book-${suffix}`)), { content: 'Booked a table.', usage: usage(4) });
    stack.model.on(during(asks(queries.capital)), { content: answers.capital[0], usage: usage(answers.capital[1]) });
    stack.model.on(during(asks(queries.sum)), { toolCalls: [{ id: `sum-${suffix}`, name: 'calculator', arguments: answers.calc }], usage: usage(8) });
    stack.model.on(during(asks(queries.booking)), { toolCalls: [{ id: `book-${suffix}`, name: 'effects_book', arguments: '{}' }], usage: usage(8) });
  };

  // What the model answered when the tasks were recorded.
  scriptPhase('record', { capital: ['Paris', 1], sum: '42', calc: '{"expression":"6*7"}' }, '1');
  const recorded: Record<keyof typeof queries, string> = { capital: '', sum: '', booking: '' };
  for (const [name, query] of Object.entries(queries) as Array<[keyof typeof queries, string]>) {
    const submitted = await submitTask(stack.orchestrator, { query });
    expect(await waitForFinish(stack.orchestrator, submitted.task_id)).toMatchObject({ status: 'TASK_STATUS_COMPLETED' });
    recorded[name] = submitted.task_id;
  }
  expect(bookings()).toBe(1);

  // The candidate: the capital answered at greater length (dearer), the sum in words, the booking as before; the same calls under other ids and spacing.
  phase = 'eval';
  scriptPhase('eval', { capital: ['paris', 30], sum: 'forty-two', calc: '{"expression": "6*7"}' }, '2');
  const modelCallsBefore = stack.model.requests.filter((r) => r.path === '/v1/chat/completions').length;

  const dir = mkdtempSync(path.join(tmpdir(), 'weft-eval-'));
  const evalId = `e2e-${run}`;
  const failing = await weft([
    '--output',
    'json',
    'eval',
    recorded.capital,
    recorded.sum,
    recorded.booking,
    '--id',
    evalId,
    '--task-queue',
    stack.taskQueue,
    '--fail-on',
    'score<0.9 || cost>10x',
    '--junit',
    path.join(dir, 'eval.xml'),
    '--markdown',
    path.join(dir, 'eval.md'),
  ]);
  expect(failing.stderr).toBe('');
  expect(failing.code).toBe(1);
  const report = JSON.parse(failing.stdout) as EvalReport;
  const [capital, sum, booking] = report.cases;

  // The changed answers beside the recorded ones, with their scores (normalised match with the recorded answer).
  expect(capital).toMatchObject({
    recordedTaskId: recorded.capital,
    status: 'COMPLETED',
    recorded: { answer: 'Paris' },
    candidate: { answer: 'paris' },
    score: { scorer: 'normalised', score: 1 },
  });
  expect(sum).toMatchObject({ recorded: { answer: '42' }, candidate: { answer: 'forty-two' }, score: { score: 0, reason: 'not "42"' } });
  expect(booking).toMatchObject({ recorded: { answer: 'Booked a table.' }, candidate: { answer: 'Booked a table.' }, score: { score: 1 } });
  expect(report.totals.score).toBeCloseTo(2 / 3);
  expect(report.failedOn).toEqual(['score<0.9 (score 0.6667)']);

  // Tokens and cost beside the recorded ones: the longer capital answer costs more.
  expect(capital!.recorded.tokens).toBe(31);
  expect(capital!.candidate.tokens).toBe(60);
  expect(capital!.candidate.costUsd).toBeGreaterThan(capital!.recorded.costUsd);
  expect(report.totals.candidate.cost).toBeGreaterThan(report.totals.recorded.cost);

  // The steps that went another way; the same call (same arguments, other id and spacing) is no divergence.
  expect(capital!.diverged).toEqual(['step 1: recorded answers "Paris"; candidate answers "paris"']);
  expect(sum!.diverged).toEqual(['step 2: recorded answers "42"; candidate answers "forty-two"']);
  expect(booking!.diverged).toEqual([]);

  // Tool calls came from the record: the peer saw no new booking; the model was asked once per candidate step.
  const observed = await stack.pool.query<{ workflow_id: string; message: string }>(
    `SELECT workflow_id, message FROM task_events WHERE workflow_id = ANY($1) AND event_type = 'TOOL_OBSERVATION' ORDER BY workflow_id`,
    [[sum!.candidateTaskId, booking!.candidateTaskId]],
  );
  expect(observed.rows).toEqual([
    { workflow_id: sum!.candidateTaskId, message: `reused from ${recorded.sum}: {"value":42}` },
    { workflow_id: booking!.candidateTaskId, message: `reused from ${recorded.booking}: {"status":200,"body":{"done":"/api/bookings"}}` },
  ]);
  expect(bookings()).toBe(1);
  expect(stack.model.requests.filter((r) => r.path === '/v1/chat/completions').length - modelCallsBefore).toBe(5);

  // Reports for CI.
  const junit = readFileSync(path.join(dir, 'eval.xml'), 'utf8');
  expect(junit).toContain('tests="4" failures="2"');
  expect(junit).toContain(`name="${recorded.sum}" time=`);
  expect(junit).toContain('<failure message="score 0.00 &lt; 0.9 (normalised: not &quot;42&quot;)"/>');
  expect(readFileSync(path.join(dir, 'eval.md'), 'utf8')).toContain('| forty-two |');

  // Eval tasks are tasks (the WeftEval search attribute) kept out of production listings.
  const evalTask = await stack.temporal.workflow.getHandle(sum!.candidateTaskId).describe();
  expect(evalTask.typedSearchAttributes.get(evalKey)).toBe(evalId);
  const listed = (await listTasks({ limit: 100 })).tasks.map((task) => task.task_id);
  expect(listed).toEqual(expect.arrayContaining(Object.values(recorded)));
  expect(listed.some((taskId) => taskId.includes(evalId))).toBe(false);

  // The gate passes when the scores hold.
  const passing = await weft(['eval', recorded.capital, recorded.booking, '--id', `${evalId}-b`, '--task-queue', stack.taskQueue, '--fail-on', 'score<0.9']);
  expect([passing.code, passing.stderr]).toEqual([0, '']);
  expect(passing.stdout).toContain('mean score 1.000');
  expect(passing.stdout).toMatch(/\npassed\n/);
  expect(bookings()).toBe(1);

  // Deleted: gone from the store and from Temporal.
  const deleted = await weft(['eval', 'delete', evalId]);
  expect([deleted.code, deleted.stdout.trim()]).toEqual([0, `deleted eval ${evalId}: 3 tasks`]);
  const { rows } = await stack.pool.query('SELECT task_id FROM tasks WHERE eval_id = $1', [evalId]);
  expect(rows).toEqual([]);
  // Temporal deletes a closed workflow asynchronously, behind whatever else the server is doing: in a full make test
  // on two cores it took longer than 30 s once.
  const deadline = Date.now() + 75_000;
  let described: unknown = 'still there';
  while (described !== undefined && Date.now() < deadline) {
    described = await stack.temporal.workflow
      .getHandle(sum!.candidateTaskId)
      .describe()
      .catch((err: unknown) => (err instanceof WorkflowNotFoundError ? undefined : err));
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  expect(described).toBeUndefined();
}, 120_000);

it('refuses a call the record does not hold, stubs it when the policy says so, runs an idempotent one when allowed, answers a task that is one tool call from the record, never reaching the peer', async () => {
  const query = `eval other booking ${Date.now()}.`;
  let phase: 'record' | 'eval' = 'record';
  stack.model.on((_text, body) => JSON.stringify(body.messages).includes('"tool_call_id":"other-2"'), { content: 'Could not book.' });
  stack.model.on((_text, body) => JSON.stringify(body.messages).includes('"tool_call_id":"other-1"'), { content: 'Booked.' });
  stack.model.on((text) => phase === 'record' && text.includes(query), { toolCalls: [{ id: 'other-1', name: 'effects_book', arguments: '{}' }] });
  stack.model.on((text) => phase === 'eval' && text.includes(query), { toolCalls: [{ id: 'other-2', name: 'effects_book', arguments: '{"party":4}' }] });
  const submitted = await submitTask(stack.orchestrator, { query });
  await waitForFinish(stack.orchestrator, submitted.task_id);
  const before = bookings();
  phase = 'eval';

  const refused = await weft(['--output', 'json', 'eval', submitted.task_id, '--task-queue', stack.taskQueue]);
  expect(refused.code).toBe(0);
  const report = JSON.parse(refused.stdout) as EvalReport;
  const observed = await stack.pool.query<{ message: string }>(`SELECT message FROM task_events WHERE workflow_id = $1 AND event_type = 'TOOL_OBSERVATION'`, [
    report.cases[0]!.candidateTaskId,
  ]);
  expect(observed.rows.map((row) => row.message)).toEqual([
    "validation error: not run in an eval: the recorded task made no effects_book call with these arguments, and the eval refuses at_most_once tools' other calls",
  ]);

  const stubbed = await weft(['--output', 'json', 'eval', submitted.task_id, '--task-queue', stack.taskQueue, '--tools', 'at_most_once=stub']);
  const stubbedEvents = await stack.pool.query<{ payload: { output?: { eval_stub?: boolean } } }>(
    `SELECT payload FROM task_events WHERE workflow_id = $1 AND event_type = 'TOOL_OBSERVATION'`,
    [(JSON.parse(stubbed.stdout) as EvalReport).cases[0]!.candidateTaskId],
  );
  expect(stubbedEvents.rows[0]!.payload.output?.eval_stub).toBe(true);

  // An idempotent tool the record never called runs for real when the policy allows it.
  const sum = `eval live sum ${Date.now()}.`;
  let summing: 'record' | 'eval' = 'record';
  stack.model.on(toolResultOf('live-1'), { content: 'Two.' });
  stack.model.on(
    (text) => text.includes(sum),
    (): ScriptedReply =>
      summing === 'record' ? { content: 'Two.' } : { toolCalls: [{ id: 'live-1', name: 'calculator', arguments: '{"expression":"1+1"}' }] },
  );
  const plain = await submitTask(stack.orchestrator, { query: sum });
  await waitForFinish(stack.orchestrator, plain.task_id);
  summing = 'eval';
  const live = await weft(['--output', 'json', 'eval', plain.task_id, '--task-queue', stack.taskQueue, '--tools', 'idempotent=live']);
  const liveEvents = await stack.pool.query<{ message: string }>(`SELECT message FROM task_events WHERE workflow_id = $1 AND event_type = 'TOOL_OBSERVATION'`, [
    (JSON.parse(live.stdout) as EvalReport).cases[0]!.candidateTaskId,
  ]);
  expect(liveEvents.rows.map((row) => row.message)).toEqual(['{"value":2}']);

  // A task that is one tool call (Shannon's /api/v1/tools/{name}/execute): its call is the record's too.
  const http = shannonCaller(`http://127.0.0.1:${stack.api.httpPort}`, stack.apiKey);
  const executed = await http.call('POST', '/api/v1/tools/effects_book/execute', { arguments: {} });
  expect(executed).toMatchObject({ status: 200, body: { success: true } });
  const direct = await weft(['--output', 'json', 'eval', executed.body.metadata.task_id, '--task-queue', stack.taskQueue]);
  const directCase = (JSON.parse(direct.stdout) as EvalReport).cases[0]!;
  const directEvents = await stack.pool.query<{ message: string }>(
    `SELECT message FROM task_events WHERE workflow_id = $1 AND event_type = 'TOOL_OBSERVATION'`,
    [directCase.candidateTaskId],
  );
  expect(directEvents.rows.map((row) => row.message)).toEqual([
    `reused from ${executed.body.metadata.task_id}: {"status":200,"body":{"done":"/api/bookings"}}`,
  ]);
  expect(directCase.score.score).toBe(1);
  expect(bookings()).toBe(before + 1);

  const unsafe = await weft(['eval', submitted.task_id, '--tools', 'keyed=live']);
  expect([unsafe.code, unsafe.stderr.trim()]).toEqual([1, 'weft: --tools: keyed tools have side effects: an eval may refuse or stub them, never run them']);
  expect(bookings()).toBe(before + 1);
}, 60_000);

it("answers an OpenAI client's own tool calls from the record: no client waits for them", async () => {
  const question = `What is the weather in Paris? ${Date.now()}`;
  let phase: 'record' | 'eval' = 'record';
  const weather = { type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } };
  stack.model.on(toolResultOf('w-1'), { content: 'It is 18°C and sunny in Paris.' });
  stack.model.on(toolResultOf('w-2'), { content: 'Sunny, 18°C.' });
  stack.model.on(
    (text) => text.includes(question),
    (): ScriptedReply => ({ toolCalls: [{ id: phase === 'record' ? 'w-1' : 'w-2', name: 'get_weather', arguments: '{"city":"Paris"}' }] }),
  );
  const openai = new OpenAI({ baseURL: `http://127.0.0.1:${stack.api.httpPort}/v1`, apiKey: stack.apiKey, maxRetries: 0 });
  const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: question }];
  const first = await openai.chat.completions.create({ model: 'weft-chat', messages, tools: [weather] }).withResponse();
  const taskId = first.response.headers.get('x-task-id')!;
  const call = first.data.choices[0]!.message;
  messages.push(call, { role: 'tool', tool_call_id: call.tool_calls![0]!.id, content: '18°C, sunny' });
  await openai.chat.completions.create({ model: 'weft-chat', messages, tools: [weather] });
  phase = 'eval';

  const evaluated = await weft(['--output', 'json', 'eval', taskId, '--task-queue', stack.taskQueue]);
  const evalCase = (JSON.parse(evaluated.stdout) as EvalReport).cases[0]!;
  expect(evalCase).toMatchObject({ status: 'COMPLETED', recorded: { answer: 'It is 18°C and sunny in Paris.' }, candidate: { answer: 'Sunny, 18°C.' } });
  const observed = await stack.pool.query<{ message: string }>(`SELECT message FROM task_events WHERE workflow_id = $1 AND event_type = 'TOOL_OBSERVATION'`, [
    evalCase.candidateTaskId,
  ]);
  expect(observed.rows.map((row) => row.message)).toEqual([`reused from ${taskId}: 18°C, sunny`]);
});

it('runs an eval set by query with its expectations and an LLM judge, goes on under the same id, and selects by visibility query and template', async () => {
  const run = Date.now();
  const query = `eval hours in a year ${run}.`;
  const rubric = `Is the number of hours right? (${run})`;
  let phase: 'record' | 'eval' = 'record';
  stack.model.on((text) => text.includes(`Rubric: ${rubric}`), { content: 'Verdict: {"score": 0.5, "reason": "right number, no working"}' });
  stack.model.on((text) => phase === 'record' && text.includes(query), { content: 'A year has 8760 hours.' });
  stack.model.on((text) => phase === 'eval' && text.includes(query), { content: 'There are 8760 hours.' });
  const submitted = await submitTask(stack.orchestrator, { query });
  await waitForFinish(stack.orchestrator, submitted.task_id);
  phase = 'eval';

  const dir = mkdtempSync(path.join(tmpdir(), 'weft-eval-set-'));
  const setFile = path.join(dir, 'hours.yaml');
  writeFileSync(
    setFile,
    [
      'name: hours',
      'cases:',
      `  - name: pattern`,
      `    query: ${JSON.stringify(query)}`,
      `    expect: { regex: "\\\\b8760 hours\\\\.$" }`,
      `  - name: judged`,
      `    query: ${JSON.stringify(query)}`,
      `    expect: { judge: ${JSON.stringify(rubric)} }`,
      '',
    ].join('\n'),
  );
  const chats = () => stack.model.requests.filter((r) => r.path === '/v1/chat/completions');
  const judgeCalls = () => chats().filter((r) => JSON.stringify(r.body).includes(rubric)).length;
  const before = chats().length;
  const evalArgs = (id: string) => ['--output', 'json', 'eval', '--baseline', setFile, '--id', id, '--task-queue', stack.taskQueue];
  const first = await weft(evalArgs(`set-${run}`));
  expect([first.code, first.stderr]).toEqual([0, '']);
  const report = JSON.parse(first.stdout) as EvalReport;
  expect(report.cases.map((c) => [c.name, c.recordedTaskId, c.candidate.answer, c.score])).toEqual([
    ['pattern', submitted.task_id, 'There are 8760 hours.', { scorer: 'regex', score: 1, reason: 'matches /\\b8760 hours\\.$/' }],
    ['judged', submitted.task_id, 'There are 8760 hours.', { scorer: 'judge', score: 0.5, reason: 'judge: right number, no working' }],
  ]);
  // Two candidate steps and one judgement, whose call is recorded as a task of the eval.
  expect([chats().length - before, judgeCalls()]).toEqual([3, 1]);

  // The same id goes on where it stopped: every case's task is there, nothing is asked again.
  const again = await weft(evalArgs(`set-${run}`));
  expect((JSON.parse(again.stdout) as EvalReport).cases.map((c) => c.candidateTaskId)).toEqual(report.cases.map((c) => c.candidateTaskId));
  expect(chats().length - before).toBe(3);
  // Another eval asks the candidate again, but the same judgement is read, not asked for.
  await weft(evalArgs(`set-${run}-b`));
  expect([chats().length - before, judgeCalls()]).toEqual([5, 1]);

  // Recorded tasks found by a visibility query; eval tasks are never recorded work.
  const found = await weft(['--output', 'json', 'eval', '--where', `WorkflowId = '${submitted.task_id}'`, '--task-queue', stack.taskQueue]);
  expect((JSON.parse(found.stdout) as EvalReport).cases.map((c) => c.recordedTaskId)).toEqual([submitted.task_id]);
  const notRecorded = await weft(['eval', report.cases[0]!.candidateTaskId]);
  expect(notRecorded.stderr.trim()).toBe(`weft: task ${report.cases[0]!.candidateTaskId} is a task of eval set-${run}, not recorded work`);

  // A template's last runs, on another version of the template and tier.
  // The analyst agent calls the calculator; every other step answers.
  stack.model.on(toolResultOf(`tmpl-${run}`), { content: 'done' });
  stack.model.on((text) => text.includes(`template run ${run}`) && text.includes('Work out the figures'), {
    toolCalls: [{ id: `tmpl-${run}`, name: 'calculator', arguments: '{"expression":"2+2"}' }],
  });
  stack.model.on((text) => text.includes(`template run ${run}`), { content: 'done' });
  const templated = await unaryCall(stack.orchestrator, 'SubmitTask', {
    query: `template run ${run}`,
    context: jsonToStruct({ template: 'data_analysis' }),
  });
  await waitForFinish(stack.orchestrator, templated.task_id);
  const byTemplate = await weft([
    '--output',
    'json',
    'eval',
    '--template',
    'data_analysis@1.0.0',
    '--last',
    '1',
    '--template-version',
    '1.0.0',
    '--tier',
    'SMALL',
    '--task-queue',
    stack.taskQueue,
  ]);
  const templateCase = (JSON.parse(byTemplate.stdout) as EvalReport).cases[0]!;
  expect(templateCase).toMatchObject({ recordedTaskId: templated.task_id, status: 'COMPLETED', candidate: { answer: 'done' } });
  const { rows } = await stack.pool.query<{ template: string; plan: { agents: Array<{ tier: string }> } }>(
    'SELECT template, plan FROM tasks WHERE task_id = $1',
    [templateCase.candidateTaskId],
  );
  expect(rows[0]!.template).toBe('data_analysis@1.0.0');
  expect(rows[0]!.plan.agents.map((agent) => agent.tier)).toEqual(['SMALL', 'SMALL']);
  // The analyst's call, in an agent's run of the recorded task, answered from the record.
  const analystCall = await stack.pool.query<{ agent_id: string; message: string }>(
    `SELECT agent_id, message FROM task_events WHERE workflow_id = $1 AND event_type = 'TOOL_OBSERVATION'`,
    [templateCase.candidateTaskId],
  );
  expect(analystCall.rows).toEqual([{ agent_id: 'analyst', message: `reused from ${templated.task_id}: {"value":4}` }]);
  const missing = await weft(['eval', '--template', 'data_analysis', '--last', '1', '--template-version', '9.9.9', '--task-queue', stack.taskQueue]);
  expect(missing.stderr.trim()).toMatch(/^weft: template data_analysis@9\.9\.9 not found in /);
}, 120_000);

itLeavesEveryTaskVerified(() => stack.everyTask());
