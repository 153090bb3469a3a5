import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createDestinationPolicy } from '../../core/tools/outbound/destination-policy';
import { createOutboundHttp } from '../../core/tools/outbound/outbound-http';
import { loadOpenApiSpec } from '../../core/tools/openapi/openapi-spec';
import { openApiSourceSchema, openApiTools } from '../../core/tools/openapi/openapi-tools';
import { registerVendorAdapter } from '../../core/tools/openapi/vendor-adapters';
import { createToolRegistry } from '../../core/tools/registry';
import { seen, startPetStore } from '../support/pet-store';
import { secretsFrom } from '../../core/secrets';

let petStore: Awaited<ReturnType<typeof startPetStore>>;
let base: string;
beforeAll(async () => {
  petStore = await startPetStore();
  base = petStore.base;
});
afterAll(() => petStore.stop());

const outbound = (allow = ['127.0.0.1']) =>
  createOutboundHttp({
    policy: createDestinationPolicy('OPENAPI_ALLOWED_DOMAINS', allow),
    timeoutMs: 5_000,
    breakerFailures: 5,
    breakerRecoveryMs: 1_000,
    maxAttempts: 2,
    initialBackoffMs: 10,
  });
const context = { tenantId: 't', userId: 'u', roles: [], sessionId: '', taskId: 'task' };

async function petTools(source: Record<string, unknown>, env: Record<string, string> = { PET_TOKEN: 'pet-token' }) {
  const config = openApiSourceSchema.parse({ name: 'pets', spec_url: `${base}/openapi.json`, auth: { type: 'bearer', token_env: 'PET_TOKEN' }, ...source });
  const http = outbound();
  const registry = createToolRegistry([]);
  registry.add(openApiTools(await loadOpenApiSpec({ url: config.spec_url! }, http, 1024 * 1024), config, http, secretsFrom(env)));
  return registry;
}

it('makes one tool per operation, with parameters and request body from the spec and its $refs resolved', async () => {
  const registry = await petTools({});
  expect(registry.list().map((t) => [t.name, t.description, t.category])).toEqual([
    ['pets_listPets', 'Lists pets, optionally by tag.', 'openapi:pets'],
    ['pets_createPet', 'Adds a pet.', 'openapi:pets'],
    ['pets_getPet', 'One pet by id.', 'openapi:pets'],
    ['pets_adoptPet', 'Adopts a pet; a repeated Idempotency-Key adopts it once.', 'openapi:pets'],
  ]);
  expect(registry.get('pets_getPet')!.parameters).toEqual({
    type: 'object',
    properties: { petId: { type: 'integer', minimum: 1 } },
    required: ['petId'],
    additionalProperties: false,
  });
  expect(registry.get('pets_createPet')!.parameters).toMatchObject({
    properties: { body: { properties: { name: { type: 'string' }, tag: { type: 'string', enum: ['cat', 'dog'] } }, required: ['name'] } },
    required: ['body'],
  });
});

it('calls operations with path, query and body, authenticating with a secret from the environment', async () => {
  const registry = await petTools({});
  expect(await registry.execute('pets_getPet', { petId: 2 }, context)).toEqual({
    ok: true,
    content: { status: 200, body: { id: 2, name: 'Tom', tag: 'cat' } },
  });
  expect(seen.at(-1)).toMatchObject({ method: 'GET', url: '/api/pets/2', authorization: 'Bearer pet-token' });
  expect(await registry.execute('pets_listPets', { tag: 'dog', limit: 5 }, context)).toMatchObject({
    ok: true,
    content: { body: { data: [{ name: 'Rex' }] } },
  });
  expect(seen.at(-1)!.url).toBe('/api/pets?tag=dog&limit=5');
  expect(await registry.execute('pets_createPet', { body: { name: 'Kit', tag: 'cat' } }, context)).toEqual({
    ok: true,
    content: { status: 201, body: { id: 3, name: 'Kit', tag: 'cat' } },
  });
  expect(JSON.parse(seen.at(-1)!.body)).toEqual({ name: 'Kit', tag: 'cat' });

  // Arguments are checked against the spec's schema before any request; HTTP errors are network errors.
  const requests = seen.length;
  expect(await registry.execute('pets_createPet', { body: { tag: 'fish' } }, context)).toMatchObject({
    ok: false,
    error: { category: 'validation', message: expect.stringMatching(/body.*name|body\.tag/) },
  });
  expect(seen.length).toBe(requests);
  // A mounted secret file works the same as the variable (<NAME>_FILE).
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'weft-secret-')), 'token');
  writeFileSync(file, 'pet-token\n');
  const fromFile = await petTools({}, { PET_TOKEN_FILE: file });
  expect(await fromFile.execute('pets_getPet', { petId: 1 }, context)).toMatchObject({ ok: true });
  expect(seen.at(-1)!.authorization).toBe('Bearer pet-token');
  expect(await registry.execute('pets_getPet', { petId: 99 }, context)).toEqual({
    ok: false,
    error: { category: 'network', message: `HTTP 404 from ${base}: {"error":"no such pet"}` },
  });

  const byKey = await petTools({ auth: { type: 'api_key', in: 'query', name: 'api_key', key_env: 'PET_KEY' } }, { PET_KEY: 'k-123' });
  expect(await byKey.execute('pets_getPet', { petId: 1 }, context)).toMatchObject({ ok: true });
  expect(seen.at(-1)!.url).toBe('/api/pets/1?api_key=k-123');
  expect(await (await petTools({}, {})).execute('pets_getPet', { petId: 1 }, context)).toEqual({
    ok: false,
    error: { category: 'execution', message: 'OpenAPI source pets: no credentials (PET_TOKEN is not set)' },
  });
});

it("runs requires_auth tools only with the calling user's own credentials", async () => {
  const perUser = await petTools(
    { auth: { type: 'bearer', token_env: 'PET_TOKEN', per_user: true } },
    { PET_TOKEN__T__ANN: 'pet-token', PET_TOKEN: 'shared-token' },
  );
  expect(perUser.get('pets_getPet')!.requiresAuth).toBe(true);
  expect(await perUser.execute('pets_getPet', { petId: 1 }, { ...context, userId: 'ann' })).toMatchObject({ ok: true });
  expect(seen.at(-1)!.authorization).toBe('Bearer pet-token');
  // Bob has no credentials of his own; the shared one is never used for him.
  const requests = seen.length;
  expect(await perUser.execute('pets_getPet', { petId: 1 }, { ...context, userId: 'bob' })).toEqual({
    ok: false,
    error: { category: 'execution', message: 'OpenAPI source pets: no credentials for bob of tenant t (PET_TOKEN__T__BOB is not set)' },
  });
  expect(seen.length).toBe(requests);
});

it('lets a vendor adapter reshape requests and responses without changing the tools', async () => {
  registerVendorAdapter('pets-v2', {
    request: (operationId, request) =>
      operationId === 'createPet'
        ? { ...request, body: { ...(request.body as object), name: String((request.body as { name: string }).name).toUpperCase() } }
        : request,
    response: (operationId, body) => (operationId === 'listPets' ? (body as { data: unknown }).data : body),
  });
  const registry = await petTools({ vendor: 'pets-v2' });
  expect(await registry.execute('pets_listPets', {}, context)).toMatchObject({ ok: true, content: { body: [{ id: 1 }, { id: 2 }] } });
  expect(await registry.execute('pets_createPet', { body: { name: 'kit' } }, context)).toMatchObject({ ok: true, content: { body: { name: 'KIT' } } });
});

it("gives a vendor adapter the task's prompt_params (the seed's account_id injection), and runs a source whose adapter is not available without one", async () => {
  registerVendorAdapter('pets-accounts', {
    request: (_operationId, request, promptParams) =>
      request.body !== undefined && 'account_id' in promptParams
        ? { ...request, body: { ...(request.body as object), account_id: promptParams.account_id } }
        : request,
  });
  const registry = await petTools({ vendor: 'pets-accounts' });
  seen.length = 0;
  await registry.execute('pets_createPet', { body: { name: 'kit' } }, { ...context, promptParams: { account_id: 'acct-42' } });
  await registry.execute('pets_createPet', { body: { name: 'rex' } }, context);
  expect(seen.map((request) => JSON.parse(request.body))).toEqual([{ name: 'kit', account_id: 'acct-42' }, { name: 'rex' }]);

  // The seed's loader falls back to no adapter: the source's tools still work.
  const unadapted = await petTools({ vendor: 'not-installed' });
  expect(await unadapted.execute('pets_listPets', {}, context)).toMatchObject({ ok: true, content: { body: { data: [{ id: 1 }, { id: 2 }] } } });
});

it('refuses remote $refs, other OpenAPI versions, oversized specs and hosts outside OPENAPI_ALLOWED_DOMAINS', async () => {
  const load = (path: string, maxBytes = 1024 * 1024, http = outbound()) =>
    loadOpenApiSpec({ url: `${base}${path}` }, http, maxBytes).catch((err: Error) => err.message);
  expect(await load('/remote-ref.json')).toBe(
    'OpenAPI spec: remote $ref https://schemas.example.com/pet.json is not supported; bundle external schemas into the spec',
  );
  expect(await load('/swagger2.json')).toBe('OpenAPI spec: only OpenAPI 3.0 and 3.1 are supported, got null');
  expect(await load('/openapi.json', 100)).toBe(`OpenAPI spec: ${base}/openapi.json is larger than the 100-byte limit`);
  expect(await load('/openapi.json', 1024, outbound(['api.github.com']))).toBe('host 127.0.0.1 is not in the allowlist (OPENAPI_ALLOWED_DOMAINS)');
});

it("declares each operation's idempotency, and fills a declared Idempotency-Key header with the call's own key", async () => {
  const registry = await petTools({});
  expect(registry.list().map((t) => [t.name, t.idempotency])).toEqual([
    ['pets_listPets', 'idempotent'],
    ['pets_createPet', 'at_most_once'],
    ['pets_getPet', 'idempotent'],
    ['pets_adoptPet', 'keyed'],
  ]);
  // The key is Weft's to give, not the model's.
  expect(registry.get('pets_adoptPet')!.parameters).toEqual({
    type: 'object',
    properties: { petId: { type: 'integer', minimum: 1 } },
    required: ['petId'],
    additionalProperties: false,
  });
  seen.length = 0;
  expect(await registry.execute('pets_adoptPet', { petId: 1 }, { ...context, idempotencyKey: 'weft-abc' })).toMatchObject({
    ok: true,
    content: { body: { adopted: 1 } },
  });
  expect(seen).toMatchObject([{ method: 'POST', url: '/api/pets/1/adoption', idempotencyKey: 'weft-abc' }]);
});
