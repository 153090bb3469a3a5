import { Counter, Registry } from 'prom-client';
import { ephemeralListen, startApiServer } from '../../api/server';
import { readSse } from '../support/sse';
import { routeToOneAgent, wasAnalysed } from '../support/routing';
import { startTestStack, TEST_MODELS, type TestStack } from '../support/stack';
import { shannonCaller, type ShannonCaller } from '../support/shannon-http';
import { restRoutes } from '../../api/rest/routes';
import { shannonRoutes } from '../../api/shannon';

// Shannon's task routes as its Python SDK calls them: the body it submits, what it reads back, the
// events and timeline, and the stream with its closing `done` event.

let stack: TestStack;
let http: ShannonCaller;
beforeAll(async () => {
  stack = await startTestStack();
  http = shannonCaller(`http://127.0.0.1:${stack.api.httpPort}`, stack.apiKey);
});
afterAll(() => stack.stop());

const unique = (text: string) => `${text} #${Math.random().toString(36).slice(2, 8)}`;

it('answers /health and /readiness without a key, readiness checking Postgres and Temporal', async () => {
  const health = await fetch(`${http.base}/health`);
  expect([health.status, await health.json()]).toEqual([200, expect.objectContaining({ status: 'healthy' })]);
  const ready = await fetch(`${http.base}/readiness`);
  expect([ready.status, await ready.json()]).toEqual([200, expect.objectContaining({ status: 'ready', checks: { postgres: 'ok', temporal: 'ok' } })]);
});

it("takes Shannon's submit body, opens the named session and answers what the SDK reads", async () => {
  const query = unique('shannon question');
  const sessionId = `shannon-${Date.now()}`;
  stack.model.on(query, { content: 'shannon answer', usage: { prompt_tokens: 5, completion_tokens: 4 } });
  const submitted = await http.call('POST', '/api/v1/tasks', {
    query,
    session_id: sessionId,
    mode: 'standard',
    model_tier: 'small',
    context: { role: 'tester' },
  });
  expect(submitted.status).toBe(200);
  const taskId = submitted.body.task_id as string;
  expect(submitted.headers.get('x-workflow-id')).toBe(taskId);

  const finished = await http.waitForTask(taskId);
  expect(finished).toMatchObject({
    task_id: taskId,
    workflow_id: taskId,
    status: 'TASK_STATUS_COMPLETED',
    result: 'shannon answer',
    query,
    session_id: sessionId,
    mode: 'standard',
    usage: { total_tokens: 9, input_tokens: 5, output_tokens: 4, cost_usd: expect.any(Number) },
  });
  // model_tier reached the model step: the small tier's model answered, from the catalog's provider.
  expect(finished).toMatchObject({ model_used: TEST_MODELS.SMALL, provider: 'scripted' });
  expect(stack.model.requests.find((r) => JSON.stringify(r.body.messages).includes(query))?.body.model).toBe(TEST_MODELS.SMALL);
  expect(Date.parse(finished.created_at)).toBeLessThanOrEqual(Date.parse(finished.updated_at));

  const session = await http.call('GET', `/api/v1/sessions/${sessionId}`);
  expect(session).toMatchObject({ status: 200, body: { session_id: sessionId, task_count: 1 } });
  const listed = await http.call('GET', `/api/v1/tasks?session_id=${sessionId}&status=COMPLETED&limit=5&offset=0`);
  expect(listed.body).toMatchObject({ total_count: 1, tasks: [{ task_id: taskId, query }] });
  expect((await http.call('GET', `/api/v1/tasks?session_id=${sessionId}&status=RUNNING`)).body.total_count).toBe(0);
});

it("pages a task's stored events and shows its Temporal history as a timeline", async () => {
  const query = unique('events question');
  stack.model.on(query, { content: 'events answer' });
  const { body } = await http.call('POST', '/api/v1/tasks', { query });
  await http.waitForTask(body.task_id);

  const all = await http.call('GET', `/api/v1/tasks/${body.task_id}/events`);
  const types = (all.body.events as Array<{ type: string }>).map((e) => e.type);
  expect(types[0]).toBe('WORKFLOW_STARTED');
  expect(types.at(-1)).toBe('WORKFLOW_COMPLETED');
  expect(all.body.events[0]).toMatchObject({ workflow_id: body.task_id, seq: 1, stream_id: expect.stringMatching(/^\d+-1$/), timestamp: expect.any(String) });
  const page = await http.call('GET', `/api/v1/tasks/${body.task_id}/events?limit=1&offset=1`);
  expect(page.body).toMatchObject({ count: 1, events: [{ seq: 2, type: types[1] }] });

  const summary = await http.call('GET', `/api/v1/tasks/${body.task_id}/timeline`);
  const lines = (summary.body.events as Array<{ type: string; summary: string }>).map((e) => e.summary);
  expect(lines[0]).toBe('workflow taskWorkflow started');
  expect(lines.some((line) => /activity runModelStep: model step 1 of agent .* scheduled/.test(line))).toBe(true);
  expect(lines.at(-1)).toBe('workflow completed');
  const full = await http.call('GET', `/api/v1/tasks/${body.task_id}/timeline?mode=full`);
  expect(full.body.count).toBeGreaterThan(summary.body.count);
  expect((full.body.events as Array<{ type: string }>).some((e) => e.type === 'WORKFLOW_TASK_COMPLETED')).toBe(true);
});

it("submits with a stream URL, streams Shannon's events to a closing done, and resumes by last_event_id without a gap or duplicate", async () => {
  const query = unique('stream question');
  stack.model.on(query, { content: 'streamed answer' });
  const submitted = await http.call('POST', '/api/v1/tasks/stream', { query });
  expect(submitted.status).toBe(201);
  const workflowId = submitted.body.workflow_id as string;
  expect(submitted.body.stream_url).toBe(`/api/v1/stream/sse?workflow_id=${workflowId}`);

  const stream = await http.raw('GET', submitted.body.stream_url);
  const { events } = await readSse(stream);
  expect(events.at(-1)).toEqual({ event: 'done', data: '[DONE]' });
  const stored = events.filter((e) => e.id);
  expect(stored.map((e) => e.event)).toContain('WORKFLOW_COMPLETED');
  expect(JSON.parse(stored[0]!.data)).toMatchObject({ workflow_id: workflowId, type: 'WORKFLOW_STARTED', seq: 1 });

  const resumed = await readSse(await http.raw('GET', `/api/v1/stream/sse?workflow_id=${workflowId}&last_event_id=${stored[1]!.id}`));
  expect(resumed.events.filter((e) => e.id).map((e) => e.id)).toEqual(stored.slice(2).map((e) => e.id));
  expect(resumed.events.at(-1)?.event).toBe('done');
});

it("filters a stream by Shannon's event names: those Weft does not emit match nothing, its aliases match Weft's own, others are refused", async () => {
  const query = unique('filtered stream');
  stack.model.on(query, { content: 'filtered answer' });
  const { body } = await http.call('POST', '/api/v1/tasks/stream', { query });
  const filtered = await readSse(
    await http.raw('GET', `/api/v1/stream/sse?workflow_id=${body.workflow_id}&types=LLM_OUTPUT,WORKFLOW_COMPLETED,workflow.cancelled`),
  );
  expect(filtered.events.filter((e) => e.id).map((e) => e.event)).toEqual(['WORKFLOW_COMPLETED']);
  expect(await http.call('GET', `/api/v1/stream/sse?workflow_id=${body.workflow_id}&types=LLM_OUTPUTS`)).toMatchObject({
    status: 400,
    body: { error: 'unknown event types: LLM_OUTPUTS' },
  });

  const slow = unique('cancelled stream');
  stack.model.on(slow, { content: 'too late', delayMs: 1_500 });
  const cancelled = await http.call('POST', '/api/v1/tasks', { query: slow });
  expect((await http.call('POST', `/api/v1/tasks/${cancelled.body.task_id}/cancel`, { reason: 'filter test' })).status).toBe(200);
  const onlyCancel = await readSse(await http.raw('GET', `/api/v1/stream/sse?workflow_id=${cancelled.body.workflow_id}&types=workflow.cancelled`));
  expect(onlyCancel.events.filter((e) => e.id).map((e) => e.event)).toEqual(['WORKFLOW_CANCELLED']);
});

/** Every message of a task's WebSocket stream until it closes, and how it closed. */
function readWebSocket(url: string, headers: Record<string, string>): Promise<{ messages: Array<Record<string, unknown>>; code: number; opened: boolean }> {
  return new Promise((resolve, reject) => {
    // Node's WebSocket (undici) takes headers in its init object, as Shannon's SDK sends X-API-Key.
    const socket = new WebSocket(url, { headers } as unknown as string[]);
    const messages: Array<Record<string, unknown>> = [];
    let opened = false;
    const timeout = setTimeout(() => reject(new Error(`no close from ${url}`)), 20_000);
    const settle = (code: number) => {
      clearTimeout(timeout);
      resolve({ messages, code, opened });
    };
    socket.onopen = () => (opened = true);
    socket.onmessage = (message) => messages.push(JSON.parse(String(message.data)) as Record<string, unknown>);
    socket.onclose = (closed) => settle(closed.code);
    socket.onerror = () => (opened ? undefined : settle(0));
  });
}

it('carries the same events over a WebSocket, resumable by last_event_id, and refuses a caller without a key in the handshake', async () => {
  const query = unique('websocket question');
  stack.model.on(query, { content: 'answer over a socket' });
  const submitted = await http.call('POST', '/api/v1/tasks/stream', { query });
  const workflowId = submitted.body.workflow_id as string;
  const ws = `ws://127.0.0.1:${stack.api.httpPort}/api/v1/stream/ws?workflow_id=${workflowId}`;
  const { messages, code } = await readWebSocket(ws, { 'x-api-key': stack.apiKey });
  expect(code).toBe(1000);
  const stored = messages.filter((m) => m.stream_id);
  expect(stored.map((m) => m.type)).toEqual(expect.arrayContaining(['WORKFLOW_STARTED', 'WORKFLOW_COMPLETED']));
  const sse = (await readSse(await http.raw('GET', `/api/v1/stream/sse?workflow_id=${workflowId}`))).events.filter((e) => e.id).map((e) => JSON.parse(e.data));
  expect(stored).toEqual(sse);

  const resumed = await readWebSocket(`${ws}&last_event_id=${String(stored[1]!.stream_id)}`, { 'x-api-key': stack.apiKey });
  expect(resumed.messages.filter((m) => m.stream_id).map((m) => m.seq)).toEqual(stored.slice(2).map((m) => m.seq));

  expect(await readWebSocket(ws, {})).toMatchObject({ opened: false, messages: [] });
  const other = await stack.newApiKey({ tenantId: `other-${stack.principal.tenantId}`, userId: 'eve', roles: [] });
  const refused = await readWebSocket(ws, { 'x-api-key': other });
  expect(refused).toMatchObject({ code: 4404, messages: [{ code: 'NOT_FOUND' }] });
});

it("refuses what Shannon's body may not carry with a clear 400, and another tenant's task with 404", async () => {
  expect(await http.call('POST', '/api/v1/tasks', { query: 'q', mode: 'turbo' })).toMatchObject({
    status: 400,
    body: { error: 'mode must be one of simple, standard, complex, supervisor' },
  });
  expect(await http.call('POST', '/api/v1/tasks', { query: 'q', session_id: 42 })).toMatchObject({
    status: 400,
    body: { error: 'session_id must be a string' },
  });
  expect(await http.call('POST', '/api/v1/tasks', { query: 'q', model_tier: 'huge' })).toMatchObject({
    status: 400,
    body: { error: 'context.model_tier must be "small", "medium" or "large"' },
  });
  expect(await http.call('POST', '/api/v1/tasks', { query: 'q', model_override: 'gpt-9' })).toMatchObject({
    status: 400,
    body: { error: expect.stringMatching(/^model_override is not supported by Weft/) },
  });
  expect(await http.call('POST', '/api/v1/tasks', { query: 'q', session_id: 'a/b' })).toMatchObject({ status: 400 });
  expect(await http.call('POST', '/api/v1/tasks', { query: 'q', max_iterations: -1 })).toMatchObject({
    status: 400,
    body: { error: 'max_iterations must be a positive integer' },
  });
  expect(await http.call('GET', '/api/v1/tasks?status=DONE')).toMatchObject({ status: 400 });
  expect(await http.call('GET', '/api/v1/tasks/task-nope/events?limit=500')).toMatchObject({
    status: 400,
    body: { error: 'limit must be an integer from 1 to 200' },
  });
  expect(await http.call('GET', '/api/v1/tasks/task-nope/events?colour=red')).toMatchObject({ status: 400, body: { error: 'unknown query parameter colour' } });
  expect(await http.call('GET', '/api/v1/tasks/task-nope/timeline?mode=brief')).toMatchObject({ status: 400 });
  expect(await http.call('GET', '/api/v1/tasks/task-nope/timeline?run_id=../../etc')).toMatchObject({ status: 400 });

  const query = unique('private question');
  stack.model.on(query, { content: 'private' });
  const { body } = await http.call('POST', '/api/v1/tasks', { query, session_id: `private-${Date.now()}` });
  const stranger = shannonCaller(http.base, await stack.newApiKey({ tenantId: `other-${Date.now()}`, userId: 'eve', roles: [] }));
  for (const path of [`/api/v1/tasks/${body.task_id}`, `/api/v1/tasks/${body.task_id}/events`, `/api/v1/tasks/${body.task_id}/timeline`]) {
    expect(await stranger.call('GET', path)).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
  }
  const noKey = await fetch(`${http.base}/api/v1/tasks/${body.task_id}/events`);
  expect(noKey.status).toBe(401);
});

it("lists every route, Weft's and Shannon's, in /openapi.json", async () => {
  const doc = (await (await fetch(`${http.base}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
  const documented = (method: string, path: string) => doc.paths[path.replace(/:(\w+)/g, '{$1}').replace(/\*$/, '{path}')]?.[method.toLowerCase()];
  for (const route of [...restRoutes, ...shannonRoutes])
    expect([route.method, route.path, documented(route.method, route.path) !== undefined]).toEqual([route.method, route.path, true]);
  for (const path of [
    '/v1/models',
    '/v1/models/{model}',
    '/v1/chat/completions',
    '/v1/completions',
    '/health',
    '/readiness',
    '/metrics',
    '/api/v1/tasks/stream',
    '/api/v1/tasks/{task_id}/timeline',
    '/api/v1/tasks/{task_id}/pause',
    '/api/v1/memory/files/{path}',
    '/api/v1/stream/sse',
    '/api/v1/stream/ws',
    '/api/v1/auth/me',
    '/api/v1/auth/api-keys',
  ]) {
    expect(doc.paths[path]).toBeDefined();
  }
});

it("serves the API's metrics at /metrics, behind the metrics token when one is set", async () => {
  const registry = new Registry();
  new Counter({ name: 'weft_test_counter', help: 'a test series', registers: [registry] }).inc();
  const server = await startApiServer({ ...stack.apiDeps, metrics: { registry, token: 'scrape-me' } }, ephemeralListen());
  try {
    const url = `http://127.0.0.1:${server.httpPort}/metrics`;
    expect((await fetch(url)).status).toBe(401);
    const scraped = await fetch(url, { headers: { authorization: 'Bearer scrape-me' } });
    expect([scraped.status, await scraped.text()]).toEqual([200, expect.stringContaining('weft_test_counter 1')]);
  } finally {
    await server.shutdown();
  }
  expect(await http.call('GET', '/metrics')).toMatchObject({ status: 404 });
});

it("routes a submit whose context asks for Shannon's research or swarm workflows through complexity analysis", async () => {
  const query = unique('research this');
  routeToOneAgent(stack.model, query);
  stack.model.on(query, { content: 'researched' });
  const { body } = await http.call('POST', '/api/v1/tasks', { query, context: { force_research: 'true' } });
  expect(await http.waitForTask(body.task_id)).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'researched' });
  expect(wasAnalysed(stack.model, query)).toBe(true);
});
