import { Ajv2020 } from 'ajv/dist/2020';
import { startTestStack, type TestStack } from '../support/stack';

// What /openapi.json says a route answers is what it answers: real answers of each door (Weft's
// REST, Shannon's gateway, the tool routes, OpenAI's /v1) validated against the document's schema
// for their status, as a client generated from the document would read them.

let stack: TestStack;
let base: string;
let adminKey: string;
beforeAll(async () => {
  stack = await startTestStack();
  base = `http://127.0.0.1:${stack.api.httpPort}`;
  adminKey = await stack.newApiKey({ tenantId: `answers-${Date.now()}`, userId: 'ada', roles: ['admin', 'approver'] });
});
afterAll(() => stack.stop());

type Operation = { responses: Record<string, { content?: Record<string, unknown> }> };

const pointer = (...parts: string[]) => parts.map((part) => part.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

it('answers each route as its schema in /openapi.json says', async () => {
  const doc = (await (await fetch(`${base}/openapi.json`)).json()) as { paths: Record<string, Record<string, Operation>> };
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema(doc, 'openapi.json');
  const check = async (method: string, path: string, documentedPath: string, body?: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${adminKey}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const status = String(response.status);
    const answer = doc.paths[documentedPath]?.[method.toLowerCase()]?.responses[status]?.content?.['application/json'];
    const validate = answer
      ? ajv.getSchema(`openapi.json#/${pointer('paths', documentedPath, method.toLowerCase(), 'responses', status, 'content', 'application/json', 'schema')}`)
      : undefined;
    const json: unknown = await response.json();
    const valid = validate?.(json) ?? false;
    return { route: `${method} ${documentedPath} ${status}`, valid, errors: valid ? null : (validate?.errors ?? 'status not documented') };
  };
  const query = `openapi answers #${Math.random().toString(36).slice(2, 8)}`;
  stack.model.on(query, { content: 'documented answer' });
  const submitted = await check('POST', '/api/v1/tasks', '/api/v1/tasks', { query });
  const checks = [
    submitted,
    await check('GET', '/api/v1/tasks', '/api/v1/tasks'),
    await check('GET', '/health', '/health'),
    await check('GET', '/readiness', '/readiness'),
    await check('GET', '/api/v1/auth/me', '/api/v1/auth/me'),
    await check('GET', '/api/v1/auth/api-keys', '/api/v1/auth/api-keys'),
    await check('POST', '/api/v1/auth/api-keys', '/api/v1/auth/api-keys', { name: 'documented', roles: ['approver'], expires_in_days: 1 }),
    await check('GET', '/api/v1/agents', '/api/v1/agents'),
    await check('GET', '/api/v1/skills', '/api/v1/skills'),
    await check('GET', '/api/v1/tools', '/api/v1/tools'),
    await check('GET', '/tools/list', '/tools/list'),
    await check('GET', '/tools/sources', '/tools/sources'),
    await check('GET', '/api/v1/schedules', '/api/v1/schedules'),
    await check('POST', '/api/v1/schedules', '/api/v1/schedules', { name: 'documented', interval: '1h', task_query: 'hello', paused: true }),
    await check('GET', '/v1/models', '/v1/models'),
    // An error is documented too, in its protocol's body.
    await check('GET', '/api/v1/agents/no-such-agent', '/api/v1/agents/{agent_id}'),
    await check('GET', '/v1/models/no-such-model', '/v1/models/{model}'),
  ];
  expect(checks.filter((c) => !c.valid)).toEqual([]);
  expect(checks.map((c) => c.route)).toEqual(expect.arrayContaining(['POST /api/v1/tasks 200', 'POST /api/v1/schedules 201', 'GET /v1/models/{model} 404']));
});
