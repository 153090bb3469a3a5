import { startTestStack, type TestStack } from '../support/stack';
import { shannonCaller, type ShannonCaller } from '../support/shannon-http';

// Shannon's auth routes: who the caller is, and API keys over REST (own keys for everyone, the
// tenant's for its admin, never a role the creator does not hold, never another tenant's key).

let stack: TestStack;
let http: ShannonCaller;
let admin: ShannonCaller;
beforeAll(async () => {
  stack = await startTestStack();
  http = shannonCaller(`http://127.0.0.1:${stack.api.httpPort}`, stack.apiKey);
  admin = shannonCaller(http.base, await stack.newApiKey({ tenantId: stack.principal.tenantId, userId: 'root', roles: ['admin'] }));
});
afterAll(() => stack.stop());

/** Calls until the answer's status is `status`: a revoked key is forgotten on the key channel's notification. */
async function eventually(call: () => Promise<{ status: number }>, status: number) {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const { status: got } = await call();
    if (got === status || Date.now() > deadline) return got;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

it('says who the caller is and the key in use', async () => {
  const me = await http.call('GET', '/api/v1/auth/me');
  expect(me).toMatchObject({
    status: 200,
    body: { user_id: 'tester', tenant_id: stack.principal.tenantId, roles: ['approver', 'act_for_users'], key_id: expect.any(String) },
  });
  // The test stack sets no rate limit, so there is none to report.
  expect(me.body.rate_limits).toEqual({ minute: null });
  expect((await fetch(`${http.base}/api/v1/auth/me`)).status).toBe(401);
});

it('creates a key shown once, which works, lists without its secret, and stops working once revoked', async () => {
  const created = await http.call('POST', '/api/v1/auth/api-keys', { name: 'ci runner', description: 'for the nightly job', roles: ['approver'] });
  expect(created).toMatchObject({ status: 201, body: { name: 'ci runner', api_key: expect.stringMatching(/^weft_/), roles: ['approver'], user_id: 'tester' } });
  const fresh = shannonCaller(http.base, created.body.api_key);
  expect((await fresh.call('GET', '/api/v1/auth/me')).body).toMatchObject({ user_id: 'tester', roles: ['approver'], key_id: created.body.id });

  const listed = await http.call('GET', '/api/v1/auth/api-keys');
  expect(listed.body.keys).toEqual(
    expect.arrayContaining([expect.objectContaining({ id: created.body.id, name: 'ci runner', description: 'for the nightly job', is_active: true })]),
  );
  expect(JSON.stringify(listed.body)).not.toContain(created.body.api_key);
  // A user sees only their own keys; the tenant's admin sees everyone's.
  expect(listed.body.keys.every((k: { user_id: string }) => k.user_id === 'tester')).toBe(true);
  expect((await admin.call('GET', '/api/v1/auth/api-keys')).body.keys.map((k: { user_id: string }) => k.user_id)).toEqual(
    expect.arrayContaining(['tester', 'root']),
  );

  expect(await http.call('DELETE', `/api/v1/auth/api-keys/${created.body.id}`)).toMatchObject({ status: 200, body: { success: true } });
  expect(await eventually(() => fresh.call('GET', '/api/v1/auth/me'), 401)).toBe(401);
  expect(await http.call('DELETE', `/api/v1/auth/api-keys/${created.body.id}`)).toMatchObject({ status: 404 });
});

it('lets only the admin make keys for others, and nobody give a role they do not hold', async () => {
  expect(await http.call('POST', '/api/v1/auth/api-keys', { name: 'escalate', roles: ['admin'] })).toMatchObject({
    status: 403,
    body: { error: expect.stringMatching(/role admin/) },
  });
  expect(await http.call('POST', '/api/v1/auth/api-keys', { name: 'for bob', user_id: 'bob' })).toMatchObject({ status: 403 });
  const forBob = await admin.call('POST', '/api/v1/auth/api-keys', { name: 'for bob', user_id: 'bob', roles: ['approver'], expires_in_days: 7 });
  expect(forBob).toMatchObject({ status: 201, body: { user_id: 'bob', roles: ['approver'] } });
  expect(await admin.call('POST', '/api/v1/auth/api-keys', { name: 'platform', roles: ['platform_admin'] })).toMatchObject({ status: 403 });
  // A user cannot revoke someone else's key of the same tenant; the admin can.
  expect(await http.call('DELETE', `/api/v1/auth/api-keys/${forBob.body.id}`)).toMatchObject({ status: 404 });
  expect(await admin.call('DELETE', `/api/v1/auth/api-keys/${forBob.body.id}`)).toMatchObject({ status: 200 });
});

it("cannot see or revoke another tenant's key", async () => {
  const stranger = shannonCaller(http.base, await stack.newApiKey({ tenantId: `other-${stack.principal.tenantId}`, userId: 'tester', roles: ['admin'] }));
  const theirs = await stranger.call('POST', '/api/v1/auth/api-keys', { name: 'theirs' });
  expect((await admin.call('GET', '/api/v1/auth/api-keys')).body.keys.map((k: { id: string }) => k.id)).not.toContain(theirs.body.id);
  expect(await admin.call('DELETE', `/api/v1/auth/api-keys/${theirs.body.id}`)).toMatchObject({ status: 404 });
  expect((await shannonCaller(http.base, theirs.body.api_key).call('GET', '/api/v1/auth/me')).status).toBe(200);
});

it.each([
  ['no name', {}, /name is required/],
  ['an unknown field', { name: 'k', scopes: ['all'] }, /unknown field scopes/],
  ['a name too long', { name: 'x'.repeat(101) }, /name must be a string of at most 100/],
  ['an unknown role', { name: 'k', roles: ['root'] }, /roles must be/],
  ['an expiry out of range', { name: 'k', expires_in_days: 0 }, /expires_in_days/],
  ['a body that is not an object', [1], /JSON object/],
])('refuses a key with %s', async (_what, body, message) => {
  expect(await http.call('POST', '/api/v1/auth/api-keys', body)).toMatchObject({
    status: 400,
    body: { error: expect.stringMatching(message), code: 'INVALID_ARGUMENT' },
  });
});
