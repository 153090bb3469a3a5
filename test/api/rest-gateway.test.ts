import { ephemeralListen, startApiServer } from '../../api/server';
import { listTaskEvents } from '../../core/events/event-log';
import { readSse } from '../support/sse';
import { until } from '../support/orchestration';
import { startTestStack, type TestStack } from '../support/stack';

let stack: TestStack;
let base: string;
beforeAll(async () => {
  stack = await startTestStack();
  base = `http://127.0.0.1:${stack.api.httpPort}`;
});
afterAll(() => stack.stop());

const unique = (text: string) => `${text} #${Math.random().toString(36).slice(2, 8)}`;

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${stack.apiKey}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  // The body's shape is what these tests assert, field by field.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

async function waitForFinish(taskId: string) {
  for (let i = 0; i < 300; i++) {
    const { body } = await call('GET', `/api/v1/tasks/${taskId}?include_details=true`);
    if (!['TASK_STATUS_QUEUED', 'TASK_STATUS_RUNNING'].includes(body.status)) return body;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`task ${taskId} did not finish`);
}

it("submits, reads, lists and cancels tasks over REST with the seed's JSON field names", async () => {
  const query = unique('rest question');
  const session = `rest-${Date.now()}`;
  stack.model.on(query, { content: 'rest answer', usage: { prompt_tokens: 4, completion_tokens: 3 } });
  const submitted = await call('POST', '/api/v1/tasks', { query, metadata: { user_id: 'ann', session_id: session } });
  expect(submitted).toMatchObject({
    status: 200,
    body: { status: 'STATUS_CODE_OK', message: 'task submitted', decomposition: { mode: 'EXECUTION_MODE_STANDARD' } },
  });
  const taskId = submitted.body.task_id as string;
  expect(submitted.body.workflow_id).toBe(taskId);

  const finished = await waitForFinish(taskId);
  expect(finished).toMatchObject({
    task_id: taskId,
    status: 'TASK_STATUS_COMPLETED',
    result: 'rest answer',
    progress: 1,
    metrics: { token_usage: { total_tokens: 7 }, mode: 'EXECUTION_MODE_STANDARD' },
  });
  expect(typeof finished.metrics.latency_ms).toBe('string'); // int64 as a string, per the proto3 JSON mapping

  const listed = await call('GET', `/api/v1/tasks?session_id=${session}&limit=5&filter_status=TASK_STATUS_COMPLETED`);
  expect(listed.body).toMatchObject({ total_count: 1, tasks: [{ task_id: taskId, query, status: 'TASK_STATUS_COMPLETED' }] });
  expect(new Date(listed.body.tasks[0].created_at).getTime()).toBeGreaterThan(Date.now() - 60_000); // Timestamp as RFC 3339

  const cancel = await call('POST', `/api/v1/tasks/${taskId}/cancel`, { reason: 'too late' });
  expect(cancel).toMatchObject({ status: 409, body: { code: 'FAILED_PRECONDITION', status: 'STATUS_CODE_ERROR' } });

  const context = await call('GET', `/api/v1/sessions/${session}/context`);
  expect(context.body).toMatchObject({ session_id: session, recent_tasks: [{ task_id: taskId }], session_token_usage: { total_tokens: 7 } });

  const key = `rest-key-${Date.now()}`;
  const idempotent = unique('idempotent');
  stack.model.on(idempotent, { content: 'once' });
  const first = await call('POST', '/api/v1/tasks', { query: idempotent }, { 'idempotency-key': key });
  const again = await call('POST', '/api/v1/tasks', { query: idempotent }, { 'idempotency-key': key });
  expect(again.body).toMatchObject({ task_id: first.body.task_id, message: 'task already submitted; returning the existing workflow' });
});

it("answers errors with the gRPC code, the seed's StatusCode and an HTTP status", async () => {
  const noKey = await fetch(`${base}/api/v1/tasks`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"q"}' });
  expect([noKey.status, await noKey.json()]).toEqual([401, { error: expect.stringMatching(/API key/i), code: 'UNAUTHENTICATED', status: 'STATUS_CODE_ERROR' }]);
  expect(await call('POST', '/api/v1/tasks', { qeury: 'typo' })).toMatchObject({
    status: 400,
    body: { error: 'unknown field qeury', code: 'INVALID_ARGUMENT' },
  });
  expect(await call('POST', '/api/v1/tasks', '{"query": ')).toMatchObject({ status: 400, body: { code: 'INVALID_ARGUMENT' } });
  expect(await call('POST', '/api/v1/tasks', { query: '' })).toMatchObject({ status: 400, body: { error: 'query is required' } });
  expect(await call('GET', '/api/v1/tasks?limit=ten')).toMatchObject({ status: 400, body: { error: 'limit must be a number' } });
  expect(await call('GET', '/api/v1/tasks?filter_status=DONE')).toMatchObject({ status: 400 });
  expect(await call('GET', '/api/v1/tasks/task-that-does-not-exist')).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
  expect(await call('GET', '/api/v1/nothing-here')).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
  expect(await call('POST', '/api/v1/approvals/nope/decision', { approved: true })).toMatchObject({ status: 404 });
});

it('manages sessions, approvals and templates over REST', async () => {
  const created = await call('POST', '/api/v1/sessions', { user_id: 'ann', initial_context: { project: 'q4' }, ttl_seconds: 600 });
  expect(created).toMatchObject({ status: 200, body: { status: 'STATUS_CODE_OK' } });
  const id = created.body.session_id as string;
  expect(await call('POST', `/api/v1/sessions/${id}/messages`, { message: { role: 'user', content: 'hello', tokens_used: 2 } })).toMatchObject({
    body: { history_size: 1 },
  });
  expect(await call('PATCH', `/api/v1/sessions/${id}`, { context_updates: { lang: 'ja' } })).toMatchObject({ body: { success: true } });
  const got = await call('GET', `/api/v1/sessions/${id}?include_history=true`);
  expect(got.body.session).toMatchObject({
    id,
    user_id: 'ann',
    context: { project: 'q4', lang: 'ja' },
    history: [{ role: 'user', content: 'hello', tokens_used: 2 }],
  });
  expect((await call('GET', '/api/v1/sessions?user_id=ann&active_only=true')).body.sessions.map((s: { id: string }) => s.id)).toContain(id);
  expect(await call('DELETE', `/api/v1/sessions/${id}/history?keep_context=true`)).toMatchObject({ body: { success: true } });
  expect(await call('DELETE', `/api/v1/sessions/${id}`)).toMatchObject({ body: { success: true } });
  expect(await call('GET', `/api/v1/sessions/${id}`)).toMatchObject({ status: 404 });

  expect(await call('GET', '/api/v1/approvals')).toMatchObject({ status: 200, body: { approvals: [] } });
  const templates = await call('GET', '/api/v1/templates');
  expect(templates.body.templates.map((t: { key: string }) => t.key)).toContain('data_analysis@1.0.0');
});

it("streams a task's events as SSE, resumes after Last-Event-ID, and keeps idle streams alive", async () => {
  const server = await startApiServer(stack.apiDeps, { ...ephemeralListen(), sseKeepAliveMs: 100 });
  try {
    const sseBase = `http://127.0.0.1:${server.httpPort}`;
    const query = unique('sse question');
    stack.model.on(query, { content: 'streamed answer', delayMs: 400 });
    const submitted = await call('POST', '/api/v1/tasks', { query });
    const taskId = submitted.body.task_id as string;
    const headers = { authorization: `Bearer ${stack.apiKey}` };
    const stream = await readSse(await fetch(`${sseBase}/api/v1/tasks/${taskId}/stream`, { headers }));
    // The answer's live-only LLM_PARTIAL events carry no id: Last-Event-ID never points at them.
    const partials = stream.events.filter((e) => e.event === 'LLM_PARTIAL');
    expect(partials.map((e) => e.id)).toEqual(partials.map(() => undefined));
    expect(partials.map((e) => JSON.parse(e.data).message).join('')).toBe('streamed answer');
    const full = { ...stream, events: stream.events.filter((e) => e.id !== undefined) };
    const log = await listTaskEvents(stack.pool, taskId);
    expect(full.events.map((e) => e.event)).toEqual(log.map((e) => e.type));
    expect(full.events.map((e) => JSON.parse(e.data).seq)).toEqual(log.map((e) => String(e.seq)));
    expect(full.events.at(-1)!.event).toBe('WORKFLOW_COMPLETED');
    expect(full.comments).toBeGreaterThan(0); // keep-alives while the model thought

    const resumeAfter = (id: string) => fetch(`${sseBase}/api/v1/tasks/${taskId}/stream`, { headers: { ...headers, 'last-event-id': id } });
    const resumed = await readSse(await resumeAfter(full.events[0]!.id!));
    expect(resumed.events.map((e) => e.id)).toEqual(full.events.slice(1).map((e) => e.id));
    // After the final event the stream ends at once instead of waiting forever.
    expect((await readSse(await resumeAfter(full.events.at(-1)!.id!))).events).toEqual([]);
    const filtered = await readSse(await fetch(`${sseBase}/api/v1/tasks/${taskId}/stream?types=WORKFLOW_STARTED,WORKFLOW_COMPLETED`, { headers }));
    expect(filtered.events.map((e) => e.event)).toEqual(['WORKFLOW_STARTED', 'WORKFLOW_COMPLETED']);

    const unknown = await fetch(`${sseBase}/api/v1/tasks/no-such-task/stream`, { headers });
    expect([unknown.status, await unknown.json()]).toEqual([404, expect.objectContaining({ code: 'NOT_FOUND' })]);
    const badType = await fetch(`${sseBase}/api/v1/tasks/${taskId}/stream?types=NOPE`, { headers });
    expect(badType.status).toBe(400);
  } finally {
    await server.shutdown();
  }
});

it("speaks the dialect of Shannon's own HTTP clients: X-API-Key, the approval id in the body, /stream/sse, bodiless JSON DELETEs", async () => {
  const keyed = { authorization: '', 'x-api-key': stack.apiKey };
  expect((await call('GET', '/api/v1/tasks', undefined, keyed)).status).toBe(200);
  expect(await call('GET', '/api/v1/tasks', undefined, { authorization: '', 'x-api-key': 'weft_wrong_key' })).toMatchObject({ status: 401 });

  const query = unique('shannon client question');
  stack.model.on(query, { content: 'approved answer' });
  const submitted = await call('POST', '/api/v1/tasks', { query, require_approval: true }, keyed);
  const taskId = submitted.body.task_id as string;
  let approvalId: string | undefined;
  for (let i = 0; i < 100 && !approvalId; i++) {
    approvalId = (await call('GET', '/api/v1/approvals')).body.approvals.find((a: { workflow_id: string }) => a.workflow_id === taskId)?.approval_id;
    if (!approvalId) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // The id holds a "/": in the body it needs no escaping.
  expect(approvalId).toContain('/');
  expect(await call('POST', '/api/v1/approvals/decision', { approval_id: approvalId, approved: true }, keyed)).toMatchObject({
    status: 200,
    body: { success: true },
  });
  expect(await waitForFinish(taskId)).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'approved answer' });

  const stream = await readSse(
    await fetch(`${base}/api/v1/stream/sse?workflow_id=${encodeURIComponent(submitted.body.workflow_id as string)}`, { headers: keyed }),
  );
  // Shannon's stream closes with its `done` event after the task's last.
  expect(stream.events.slice(-2).map((e) => e.event)).toEqual(['WORKFLOW_COMPLETED', 'done']);
  // Shannon's example client falls back to reading the id from the event's message (`id=...`).
  const requested = JSON.parse(stream.events.find((e) => e.event === 'APPROVAL_REQUESTED')!.data) as { message: string };
  expect(/id=(\S+)\)/.exec(requested.message)?.[1]).toBe(approvalId);

  // The id in the path, its "/" sent as is (no %2F), reaches the decision route too.
  const second = unique('raw slash question');
  stack.model.on(second, { content: 'second answer' });
  const secondTask = (await call('POST', '/api/v1/tasks', { query: second, require_approval: true }, keyed)).body.task_id as string;
  const secondId = await until(
    async () =>
      (await call('GET', '/api/v1/approvals')).body.approvals.find((a: { workflow_id: string }) => a.workflow_id === secondTask)?.approval_id as
        string | undefined,
  );
  expect(secondId).toContain('/');
  expect(await call('POST', `/api/v1/approvals/${secondId}/decision`, { approved: false, feedback: 'no' }, keyed)).toMatchObject({
    status: 200,
    body: { success: true },
  });
  expect(await waitForFinish(secondTask)).toMatchObject({ status: 'TASK_STATUS_CANCELLED', error_message: 'rejected: no' });

  const session = (await call('POST', '/api/v1/sessions', { user_id: 'ann' })).body.session_id as string;
  const bodiless = await fetch(`${base}/api/v1/sessions/${session}`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' },
  });
  expect([bodiless.status, await bodiless.json()]).toEqual([200, expect.objectContaining({ success: true })]);
});

it('serves an OpenAPI 3.1 document covering every route, with every schema reference defined', async () => {
  const response = await fetch(`${base}/openapi.json`);
  const doc = (await response.json()) as {
    openapi: string;
    paths: Record<string, Record<string, { operationId: string }>>;
    components: { schemas: Record<string, unknown> };
  };
  expect(doc.openapi).toBe('3.1.0');
  const operations = Object.values(doc.paths).flatMap((methods) => Object.values(methods).map((op) => op.operationId));
  expect(operations).toEqual(
    expect.arrayContaining([
      'SubmitTask',
      'GetTaskStatus',
      'ListTasks',
      'CancelTask',
      'GetPendingApprovals',
      'ApproveTask',
      'ListTemplates',
      'CreateSession',
      'GetSession',
      'UpdateSession',
      'DeleteSession',
      'ListSessions',
      'AddMessage',
      'ClearHistory',
      'GetSessionContext',
      'StreamTaskExecution',
    ]),
  );
  const refs = [...JSON.stringify(doc).matchAll(/"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!);
  for (const ref of new Set(refs)) expect(doc.components.schemas).toHaveProperty([ref]);
  expect(doc.paths['/api/v1/tasks/{task_id}']!.get!.operationId).toBe('GetTaskStatus');
});

it('lists in /openapi.json every route the HTTP port serves, and nothing it does not serve', async () => {
  const doc = (await (await fetch(`${base}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
  const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}').replace(/\*$/, '{path}');
  const served = stack.api.httpRoutes.map(({ method, path }) => `${method} ${openApiPath(path)}`).sort();
  const documented = Object.entries(doc.paths)
    .flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`))
    .sort();
  expect(documented).toEqual(served);
  // Every door is among them: Weft's REST and streams, Shannon's gateway, the tool routes, OpenAI's /v1.
  expect(served).toEqual(
    expect.arrayContaining([
      'POST /api/v1/tasks',
      'GET /api/v1/stream/ws',
      'POST /api/v1/schedules',
      'POST /api/v1/tools/{name}/execute',
      'GET /tools/list',
      'POST /tools/sources',
      'POST /v1/chat/completions',
      'POST /v1/responses',
      'GET /openapi.json',
    ]),
  );
});
