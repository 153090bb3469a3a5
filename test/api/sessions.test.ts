import { status as GrpcStatus } from '@grpc/grpc-js';
import { unaryCall, type ServiceClient } from '../../protos/clients';
import { jsonToStruct, structToJson } from '../../api/grpc/struct';
import { grpcError, submitTask, waitForFinish } from '../support/grpc';
import { startTestStack, type TestStack } from '../support/stack';

let stack: TestStack;
let sessions: ServiceClient<'session'>;
beforeAll(async () => {
  stack = await startTestStack();
  sessions = stack.client('session');
});
afterAll(() => stack.stop());

const create = (request: Parameters<typeof sessions.CreateSession>[0] = {}) => unaryCall(sessions, 'CreateSession', request);
const message = (role: string, content: string, extra: Record<string, unknown> = {}) => ({ role, content, ...extra });

it('creates a session with context, history limit and TTL, and reads it back with its history', async () => {
  const before = Date.now();
  const created = await create({ user_id: 'ann', initial_context: jsonToStruct({ project: 'q4', depth: 2 }), max_history: 3, ttl_seconds: 600 });
  expect(created).toMatchObject({ status: 'STATUS_CODE_OK', message: 'session created' });
  const expiresMs = Number(created.expires_at!.seconds) * 1000;
  expect(expiresMs - Number(created.created_at!.seconds) * 1000).toBeGreaterThanOrEqual(599_000);
  expect(Number(created.created_at!.seconds) * 1000).toBeGreaterThanOrEqual(before - 1000);

  for (const [i, role] of ['user', 'assistant', 'user', 'assistant'].entries()) {
    const added = await unaryCall(sessions, 'AddMessage', { session_id: created.session_id, message: message(role, `turn ${i}`, { tokens_used: 10 }) });
    expect(added).toMatchObject({ success: true, history_size: Math.min(i + 1, 3), status: 'STATUS_CODE_OK' });
  }
  const got = await unaryCall(sessions, 'GetSession', { session_id: created.session_id, include_history: true });
  expect(got.status).toBe('STATUS_CODE_OK');
  expect(got.session).toMatchObject({ id: created.session_id, user_id: 'ann', metrics: { total_messages: 3, total_tokens: 30 } });
  expect(structToJson(got.session!.context)).toEqual({ project: 'q4', depth: 2 });
  // Only the newest max_history messages are kept, in order.
  expect(got.session!.history.map((m) => [m.role, m.content])).toEqual([
    ['assistant', 'turn 1'],
    ['user', 'turn 2'],
    ['assistant', 'turn 3'],
  ]);
  const withoutHistory = await unaryCall(sessions, 'GetSession', { session_id: created.session_id });
  expect(withoutHistory.session!.history).toEqual([]);

  // The orchestrator sees the stored context too.
  const context = await unaryCall(stack.orchestrator, 'GetSessionContext', { session_id: created.session_id });
  expect(structToJson(context.context)).toEqual({ project: 'q4', depth: 2 });
});

it('updates context, extends the TTL, clears history with or without context, and retries an added message exactly', async () => {
  const created = await create({ initial_context: jsonToStruct({ keep: 'me', theme: 'dark' }), ttl_seconds: 60 });
  const updated = await unaryCall(sessions, 'UpdateSession', {
    session_id: created.session_id,
    context_updates: jsonToStruct({ theme: 'light', lang: 'ja' }),
    extend_ttl_seconds: 120,
  });
  expect(updated).toMatchObject({ success: true, status: 'STATUS_CODE_OK' });
  expect(Number(updated.new_expires_at!.seconds) - Number(created.expires_at!.seconds)).toBe(120);
  const got = await unaryCall(sessions, 'GetSession', { session_id: created.session_id });
  expect(structToJson(got.session!.context)).toEqual({ keep: 'me', theme: 'light', lang: 'ja' });

  const add = (content: string) => unaryCall(sessions, 'AddMessage', { session_id: created.session_id, message: message('user', content, { id: 'm-1' }) });
  expect((await add('hello')).history_size).toBe(1);
  expect((await add('hello')).history_size).toBe(1); // an exact retry adds nothing
  expect((await grpcError(add('something else'))).code).toBe(GrpcStatus.ALREADY_EXISTS);

  await unaryCall(sessions, 'ClearHistory', { session_id: created.session_id, keep_context: true });
  const kept = await unaryCall(sessions, 'GetSession', { session_id: created.session_id, include_history: true });
  expect(kept.session!.history).toEqual([]);
  expect(structToJson(kept.session!.context)).toEqual({ keep: 'me', theme: 'light', lang: 'ja' });
  await unaryCall(sessions, 'ClearHistory', { session_id: created.session_id, keep_context: false });
  const cleared = await unaryCall(sessions, 'GetSession', { session_id: created.session_id });
  expect(structToJson(cleared.session!.context)).toEqual({});
});

it("lists the tenant's sessions by user, active only, with paging and a total", async () => {
  const user = `lister-${Date.now()}`;
  const ids = [];
  for (let i = 0; i < 3; i++) ids.push((await create({ user_id: user, ttl_seconds: i === 0 ? 1 : 600 })).session_id);
  await unaryCall(sessions, 'AddMessage', { session_id: ids[2]!, message: message('user', 'hi', { tokens_used: 7 }) });
  await new Promise((resolve) => setTimeout(resolve, 1100)); // the first one expires

  const all = await unaryCall(sessions, 'ListSessions', { user_id: user });
  expect(all.total_count).toBe(3);
  expect(all.sessions.map((s) => s.id)).toEqual([...ids].reverse());
  expect(all.sessions[0]).toMatchObject({ user_id: user, message_count: 1, total_tokens: 7, is_active: true });
  expect(all.sessions[2]!.is_active).toBe(false);
  const active = await unaryCall(sessions, 'ListSessions', { user_id: user, active_only: true, limit: 1, offset: 1 });
  expect(active).toMatchObject({ total_count: 2, sessions: [{ id: ids[1] }] });
  expect((await grpcError(unaryCall(sessions, 'ListSessions', { limit: -1 }))).code).toBe(GrpcStatus.INVALID_ARGUMENT);
});

it('a task completed in a session adds its turn to the session history, once', async () => {
  const created = await create({ max_history: 10 });
  stack.model.on('what did the session decide?', { content: 'It decided to ship.' });
  const task = await submitTask(stack.orchestrator, { query: 'what did the session decide?', metadata: { session_id: created.session_id } });
  expect((await waitForFinish(stack.orchestrator, task.task_id)).status).toBe('TASK_STATUS_COMPLETED');
  const got = await unaryCall(sessions, 'GetSession', { session_id: created.session_id, include_history: true });
  expect(got.session!.history.map((m) => [m.role, m.content, structToJson(m.metadata)])).toEqual([
    ['user', 'what did the session decide?', { task_id: task.task_id }],
    ['assistant', 'It decided to ship.', { task_id: task.task_id }],
  ]);
});

it('expires a session at its TTL and ends it in the runtime store', async () => {
  const created = await create({ ttl_seconds: 1 });
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const err = await grpcError(unaryCall(sessions, 'AddMessage', { session_id: created.session_id, message: message('user', 'late') }));
  expect(err.code).toBe(GrpcStatus.NOT_FOUND);
  expect(err.details).toMatch(/expired/);
  expect(await stack.store.loadSessionStatus(created.session_id)).toBe('ended');

  // Untouched since it expired: GetSession and a task submitted into it say so, as AddMessage does.
  const untouched = await create({ ttl_seconds: 1 });
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const read = await grpcError(unaryCall(sessions, 'GetSession', { session_id: untouched.session_id }));
  expect([read.code, read.details]).toEqual([GrpcStatus.NOT_FOUND, expect.stringMatching(`session ${untouched.session_id} expired at`)]);
  const refused = await grpcError(submitTask(stack.orchestrator, { query: 'work in an expired session', metadata: { session_id: untouched.session_id } }));
  expect([refused.code, refused.details]).toEqual([GrpcStatus.NOT_FOUND, expect.stringMatching(`session ${untouched.session_id} expired at`)]);
  expect(await stack.store.loadSessionStatus(untouched.session_id)).toBe('ended');
});

it('deleting a session ends it in the runtime store, and a task submitted into it is refused', async () => {
  const created = await create();
  expect(await unaryCall(sessions, 'DeleteSession', { session_id: created.session_id })).toMatchObject({ success: true, status: 'STATUS_CODE_OK' });
  expect(await stack.store.loadSessionStatus(created.session_id)).toBe('ended');
  expect((await grpcError(unaryCall(sessions, 'GetSession', { session_id: created.session_id }))).code).toBe(GrpcStatus.NOT_FOUND);
  const listed = await unaryCall(sessions, 'ListSessions', {});
  expect(listed.sessions.map((s) => s.id)).not.toContain(created.session_id);
  const refused = await grpcError(submitTask(stack.orchestrator, { query: 'work in a deleted session', metadata: { session_id: created.session_id } }));
  expect([refused.code, refused.details]).toEqual([GrpcStatus.NOT_FOUND, `session ${created.session_id} was deleted`]);
});

it("refuses bad input with INVALID_ARGUMENT and another tenant's sessions with NOT_FOUND", async () => {
  const invalid = [
    create({ ttl_seconds: -5 }),
    create({ max_history: -1 }),
    unaryCall(sessions, 'GetSession', { session_id: '' }),
    unaryCall(sessions, 'UpdateSession', { session_id: 'x', extend_ttl_seconds: -1 }),
    unaryCall(sessions, 'AddMessage', { session_id: 'x' }),
    unaryCall(sessions, 'AddMessage', { session_id: 'x', message: message('robot', 'hi') }),
    unaryCall(sessions, 'AddMessage', { session_id: 'x', message: message('user', '') }),
  ];
  for (const call of invalid) expect((await grpcError(call)).code).toBe(GrpcStatus.INVALID_ARGUMENT);

  const mine = await create({ initial_context: jsonToStruct({ secret: 1 }) });
  const other = stack.client('session', await stack.newApiKey({ tenantId: `other-${Date.now()}`, userId: 'eve', roles: ['approver'] }));
  const id = mine.session_id;
  const attempts = [
    unaryCall(other, 'GetSession', { session_id: id }),
    unaryCall(other, 'UpdateSession', { session_id: id, context_updates: jsonToStruct({ secret: 2 }) }),
    unaryCall(other, 'AddMessage', { session_id: id, message: message('user', 'hi') }),
    unaryCall(other, 'ClearHistory', { session_id: id }),
    unaryCall(other, 'DeleteSession', { session_id: id }),
  ];
  for (const call of attempts) expect((await grpcError(call)).code).toBe(GrpcStatus.NOT_FOUND);
  expect((await unaryCall(other, 'ListSessions', {})).sessions.map((s) => s.id)).not.toContain(id);
  const still = await unaryCall(sessions, 'GetSession', { session_id: id });
  expect(structToJson(still.session!.context)).toEqual({ secret: 1 });
});
