import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import path from 'node:path';
import { workspaceDirOf } from '../../core/tools/builtin/workspace';
import { startTestStack, type TestStack } from '../support/stack';
import { shannonCaller, type ShannonCaller } from '../support/shannon-http';

// Shannon's sessions as its SDK uses them: opened by the first task that names them, listed with a
// title and task counts, their history and events by turn, the files their tasks wrote, deleted.

let stack: TestStack;
let http: ShannonCaller;
let admin: ShannonCaller;
beforeAll(async () => {
  stack = await startTestStack();
  http = shannonCaller(`http://127.0.0.1:${stack.api.httpPort}`, stack.apiKey);
  admin = shannonCaller(http.base, await stack.newApiKey({ tenantId: stack.principal.tenantId, userId: stack.principal.userId, roles: ['admin'] }));
});
afterAll(() => stack.stop());

/** A GET whose path goes out exactly as written. */
function unnormalisedGet(requestPath: string): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: stack.api.httpPort, path: requestPath, headers: { 'x-api-key': stack.apiKey } }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> }));
    });
    req.on('error', reject);
    req.end();
  });
}

const unique = (text: string) => `${text} #${Math.random().toString(36).slice(2, 8)}`;

it('opens a session with its first task, titles it, lists its history and turns, and deletes it', async () => {
  const sessionId = `sdk-${Date.now()}`;
  const [first, second] = [unique('first turn'), unique('second turn')];
  stack.model.on(first, { content: 'first answer' });
  stack.model.on(second, { content: 'second answer' });
  const a = await http.call('POST', '/api/v1/tasks', { query: first, session_id: sessionId });
  await http.waitForTask(a.body.task_id);
  const b = await http.call('POST', '/api/v1/tasks', { query: second, session_id: sessionId });
  await http.waitForTask(b.body.task_id);
  // The second task saw the first turn: the session is a conversation.
  expect(JSON.stringify(stack.model.requests.find((r) => JSON.stringify(r.body.messages).includes(second))!.body.messages)).toContain('first answer');

  expect(await http.call('PATCH', `/api/v1/sessions/${sessionId}`, { title: 'Year lengths' })).toMatchObject({
    status: 200,
    body: { success: true, title: 'Year lengths' },
  });
  const listed = await http.call('GET', '/api/v1/sessions?limit=50&offset=0');
  expect(listed.body.sessions.find((s: { session_id: string }) => s.session_id === sessionId)).toMatchObject({
    title: 'Year lengths',
    task_count: 2,
    successful_tasks: 2,
    latest_task_query: second,
    user_id: stack.principal.userId,
  });
  expect((await http.call('GET', `/api/v1/sessions/${sessionId}`)).body).toMatchObject({
    session_id: sessionId,
    title: 'Year lengths',
    task_count: 2,
    created_at: expect.any(String),
  });

  const history = await http.call('GET', `/api/v1/sessions/${sessionId}/history`);
  expect(history.body).toMatchObject({
    total: 2,
    tasks: [
      { task_id: b.body.task_id, query: second, result: 'second answer' },
      { task_id: a.body.task_id, status: 'COMPLETED' },
    ],
  });
  const turns = await http.call('GET', `/api/v1/sessions/${sessionId}/events?limit=1`);
  expect(turns.body).toMatchObject({ count: 2, turns: [{ turn: 2, task_id: b.body.task_id, user_query: second, final_output: 'second answer' }] });
  const types = turns.body.turns[0].events.map((e: { type: string }) => e.type);
  expect(types).toContain('WORKFLOW_COMPLETED');
  expect(types).not.toContain('LLM_PARTIAL');

  expect(await http.call('DELETE', `/api/v1/sessions/${sessionId}`)).toMatchObject({ status: 200, body: { success: true } });
  expect(await http.call('GET', `/api/v1/sessions/${sessionId}`)).toMatchObject({ status: 404 });
  expect(await http.call('GET', `/api/v1/sessions/${sessionId}/history`)).toMatchObject({ status: 404 });
  expect((await http.call('GET', '/api/v1/sessions')).body.sessions.some((s: { session_id: string }) => s.session_id === sessionId)).toBe(false);
  // A deleted session stays deleted: a task naming it again is refused.
  expect(await http.call('POST', '/api/v1/tasks', { query: 'again', session_id: sessionId })).toMatchObject({
    status: 404,
    body: { error: `session ${sessionId} was deleted` },
  });
});

it("serves the files a task wrote to its session workspace and its user's memory", async () => {
  const sessionId = `files-${Date.now()}`;
  const query = unique('write the summary');
  stack.model.on(
    query,
    { toolCalls: [{ id: 'w1', name: 'file_write', arguments: JSON.stringify({ path: 'out/summary.md', content: '# E2E File Test\n' }) }] },
    { toolCalls: [{ id: 'm1', name: 'memory_write', arguments: JSON.stringify({ path: 'preferences.md', content: 'likes short answers' }) }] },
    { content: 'written' },
  );
  const { body } = await admin.call('POST', '/api/v1/tasks', { query, session_id: sessionId });
  expect(await admin.waitForTask(body.task_id)).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'written' });

  expect((await http.call('GET', `/api/v1/sessions/${sessionId}/files`)).body.files).toEqual([
    expect.objectContaining({ name: 'out', path: 'out', is_dir: true }),
  ]);
  expect((await http.call('GET', `/api/v1/sessions/${sessionId}/files?path=out`)).body.files).toEqual([
    expect.objectContaining({ name: 'summary.md', path: 'out/summary.md', is_dir: false, size_bytes: 16 }),
  ]);
  expect((await http.call('GET', `/api/v1/sessions/${sessionId}/files/out/summary.md`)).body).toMatchObject({
    success: true,
    content: '# E2E File Test\n',
    encoding: 'utf-8',
    content_type: 'text/markdown',
    size_bytes: 16,
  });
  expect((await http.call('GET', '/api/v1/memory/files')).body.files).toEqual([expect.objectContaining({ path: 'preferences.md' })]);
  expect((await http.call('GET', '/api/v1/memory/files/preferences.md')).body.content).toBe('likes short answers');

  // Binary files come base64-encoded.
  const workspace = workspaceDirOf(stack.workspaceDir, { tenantId: stack.principal.tenantId, sessionId, taskId: '' });
  writeFileSync(path.join(workspace, 'out', 'image.bin'), Buffer.from([0, 1, 2, 255]));
  expect((await http.call('GET', `/api/v1/sessions/${sessionId}/files/out/image.bin`)).body).toMatchObject({
    content: 'AAEC/w==',
    encoding: 'base64',
    size_bytes: 4,
  });
});

it('keeps file paths inside the folder, and other tenants out', async () => {
  const sessionId = `guarded-${Date.now()}`;
  const query = unique('guarded');
  stack.model.on(query, { content: 'ok' });
  const { body } = await http.call('POST', '/api/v1/tasks', { query, session_id: sessionId });
  await http.waitForTask(body.task_id);
  const workspace = workspaceDirOf(stack.workspaceDir, { tenantId: stack.principal.tenantId, sessionId, taskId: '' });
  mkdirSync(workspace, { recursive: true });
  writeFileSync(path.join(stack.workspaceDir, 'outside.txt'), 'secret');
  symlinkSync(path.join(stack.workspaceDir, 'outside.txt'), path.join(workspace, 'link.txt'));

  // Sent as written: fetch would resolve the dot segments before they reach the server.
  for (const bad of ['../../outside.txt', '%2e%2e/%2e%2e/outside.txt', '..%2F..%2Foutside.txt', 'link.txt', '%2Fetc%2Fpasswd']) {
    const answer = await unnormalisedGet(`/api/v1/sessions/${sessionId}/files/${bad}`);
    expect([bad, answer.status, answer.body.code]).toEqual([bad, 400, 'INVALID_ARGUMENT']);
  }
  expect(await http.call('GET', `/api/v1/sessions/${sessionId}/files?path=..`)).toMatchObject({ status: 400 });
  expect(await http.call('GET', `/api/v1/sessions/${sessionId}/files/missing.txt`)).toMatchObject({ status: 404 });
  // Symlinks are never listed.
  expect((await http.call('GET', `/api/v1/sessions/${sessionId}/files`)).body.files).toEqual([]);

  const stranger = shannonCaller(http.base, await stack.newApiKey({ tenantId: `other-${Date.now()}`, userId: 'eve', roles: [] }));
  for (const route of [
    `/api/v1/sessions/${sessionId}`,
    `/api/v1/sessions/${sessionId}/history`,
    `/api/v1/sessions/${sessionId}/events`,
    `/api/v1/sessions/${sessionId}/files`,
  ]) {
    expect(await stranger.call('GET', route)).toMatchObject({ status: 404 });
  }
  expect(await stranger.call('PATCH', `/api/v1/sessions/${sessionId}`, { title: 'mine now' })).toMatchObject({ status: 404 });
  // Another tenant naming the session in a task does not get it either.
  expect(await stranger.call('POST', '/api/v1/tasks', { query: 'q', session_id: sessionId })).toMatchObject({ status: 404 });
});

it('refuses titles that are not short plain text', async () => {
  const sessionId = `titles-${Date.now()}`;
  const query = unique('titles');
  stack.model.on(query, { content: 'ok' });
  await http.waitForTask((await http.call('POST', '/api/v1/tasks', { query, session_id: sessionId })).body.task_id);
  expect(await http.call('PATCH', `/api/v1/sessions/${sessionId}`, { title: 'x'.repeat(61) })).toMatchObject({
    status: 400,
    body: { error: 'title is longer than 60 characters' },
  });
  expect(await http.call('PATCH', `/api/v1/sessions/${sessionId}`, { title: 5 })).toMatchObject({ status: 400 });
  expect(await http.call('PATCH', `/api/v1/sessions/${sessionId}`, { title: 'a\u0000b' })).toMatchObject({ status: 400 });
  expect(await http.call('PATCH', `/api/v1/sessions/${sessionId}`, { title: 'ok', colour: 'red' })).toMatchObject({
    status: 400,
    body: { error: 'unknown field colour' },
  });
});
