import * as grpc from '@grpc/grpc-js';
import type * as protobuf from 'protobufjs';
import { maxIdBytes } from '../../api/grpc/field-limits';
import { restRoutes, shannonStreamRoute, streamRoute } from '../../api/rest/routes';
import { methodTypes } from '../../protos/json-mapping';
import { unaryCall } from '../../protos/clients';
import { apiServices, sendRaw, serviceMethods } from '../support/fuzz';
import { startTestStack, type TestStack } from '../support/stack';

// Inputs that used to break the door: ids of a few KB (they reached Postgres indexes and came back
// INTERNAL), headers REST cannot carry (a 500, or an SSE connection held open), numbers that
// wrapped, time limits that overflowed. Each is refused with a message that names the field.

let stack: TestStack;
let base: string;
beforeAll(async () => {
  stack = await startTestStack();
  base = `http://127.0.0.1:${stack.api.httpPort}`;
});
afterAll(() => stack.stop());

const idField = /^(id|.+_id|.+_key|.+_ids)$/;
const messageOf = (field: protobuf.Field) => (field.resolvedType && 'fieldsArray' in field.resolvedType ? (field.resolvedType as protobuf.Type) : undefined);

/** Every id-like string field of a request, top level and one message deep, as a request holding a huge value there. */
function hugeIdRequests(type: protobuf.Type): Array<{ path: string; request: Record<string, unknown> }> {
  const huge = 'x'.repeat(maxIdBytes + 1);
  const value = (field: protobuf.Field) => (field.repeated ? [huge] : huge);
  const cases: Array<{ path: string; request: Record<string, unknown> }> = [];
  for (const field of type.fieldsArray) {
    if (field.type === 'string' && idField.test(field.name))
      cases.push({ path: field.repeated ? `${field.name}[0]` : field.name, request: { [field.name]: value(field) } });
    const nested = messageOf(field);
    if (!nested || field.repeated || field.map) continue;
    for (const inner of nested.fieldsArray) {
      if (inner.type !== 'string' || !idField.test(inner.name)) continue;
      cases.push({ path: `${field.name}.${inner.repeated ? `${inner.name}[0]` : inner.name}`, request: { [field.name]: { [inner.name]: value(inner) } } });
    }
  }
  return cases;
}

it('refuses an id over 256 bytes on every RPC that takes one, naming the field', async () => {
  const metadata = new grpc.Metadata();
  metadata.set('authorization', `Bearer ${stack.apiKey}`);
  const answers: string[] = [];
  const expected: string[] = [];
  for (const [service, port] of apiServices) {
    const client = new grpc.Client(`127.0.0.1:${stack.api[port]}`, grpc.credentials.createInsecure());
    try {
      for (const { rpc, serverStreaming } of serviceMethods(service)) {
        const { request: type } = methodTypes(service, rpc);
        for (const { path, request } of hugeIdRequests(type)) {
          const bytes = Buffer.from(type.encode(type.fromObject(request)).finish());
          const { code, details } = await sendRaw(client, `/${service}/${rpc}`, bytes, metadata, serverStreaming, 5_000);
          answers.push(`${rpc} ${path}: ${grpc.status[code]} ${details}`);
          expected.push(`${rpc} ${path}: INVALID_ARGUMENT ${path} is ${maxIdBytes + 1} bytes; the limit is ${maxIdBytes}`);
        }
      }
    } finally {
      client.close();
    }
  }
  expect(answers).toEqual(expected);
  // The ids the old report found among them.
  for (const known of [
    'SubmitTask metadata.task_id',
    'SubmitTask metadata.session_id',
    'AddMessage message.id',
    'GenerateCompletion config.cache_key',
    'StreamCompletion metadata.task_id',
  ]) {
    expect(answers.some((answer) => answer.startsWith(`${known}:`))).toBe(true);
  }
});

const restPaths = [
  ...restRoutes.map((route) => ({ method: route.method, path: route.path.replace(/:(\w+)/g, 'some-$1') })),
  { method: 'GET', path: streamRoute.path.replace(':workflow_id', 'some-task') },
  { method: 'GET', path: `${shannonStreamRoute.path}?workflow_id=some-task` },
  { method: 'GET', path: '/tools/list' },
  { method: 'GET', path: '/tools/calculator/schema' },
  { method: 'GET', path: '/tools/calculator/metadata' },
  { method: 'GET', path: '/tools/sources' },
  { method: 'POST', path: '/tools/sources' },
  { method: 'DELETE', path: '/tools/sources/some-source' },
];

it.each(['authorization', 'x-api-key', 'idempotency-key', 'last-event-id'])(
  'answers a non-ASCII %s header with 400 on every REST route, SSE included, with or without a key',
  async (header) => {
    const answers = await Promise.all(
      restPaths.flatMap(({ method, path }) =>
        [true, false].map(async (withKey) => {
          const headers: Record<string, string> = { [header]: 'caf\u00e9' };
          if (withKey && header !== 'authorization') headers.authorization = `Bearer ${stack.apiKey}`;
          const response = await fetch(`${base}${path}`, { method, headers, signal: AbortSignal.timeout(5_000) });
          return `${method} ${path}: ${response.status} ${JSON.stringify(await response.json())}`;
        }),
      ),
    );
    const refusal = JSON.stringify({ error: `header ${header} must be printable ASCII`, code: 'INVALID_ARGUMENT', status: 'STATUS_CODE_ERROR' });
    expect(answers).toEqual(restPaths.flatMap(({ method, path }) => [`${method} ${path}: 400 ${refusal}`, `${method} ${path}: 400 ${refusal}`]));
  },
);

async function submitOverRest(body: unknown) {
  const response = await fetch(`${base}/api/v1/tasks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as { error: string; code: string } };
}

it('refuses integers out of their range instead of wrapping them', async () => {
  const wrapped = await submitOverRest({ query: 'q', metadata: { max_agents: 1e20 } });
  expect(wrapped).toEqual({
    status: 400,
    body: expect.objectContaining({ error: 'metadata.max_agents is out of range for a int32', code: 'INVALID_ARGUMENT' }),
  });
  const query = await fetch(`${base}/api/v1/tasks?limit=99999999999`, { headers: { authorization: `Bearer ${stack.apiKey}` } });
  expect([query.status, ((await query.json()) as { error: string }).error]).toEqual([400, 'limit is out of range for a int32']);
});

it('bounds time limits: an approval timeout of 1e13 seconds is refused, not a database error later', async () => {
  const answer = await submitOverRest({ query: 'q', context: { approval_timeout_seconds: 1e13 } });
  expect(answer).toEqual({
    status: 400,
    body: expect.objectContaining({ error: 'context.approval_timeout_seconds must be a positive number up to 2592000', code: 'INVALID_ARGUMENT' }),
  });
});

it("bounds an agent task's timeout: a timer past 24.8 days would fire at once and cancel the task", async () => {
  const refused = await unaryCall(stack.client('agent'), 'ExecuteTask', { query: 'q', config: { timeout_seconds: 917_320_784 } }).then(
    () => undefined,
    (err: grpc.ServiceError) => err,
  );
  expect([refused?.code, refused?.details]).toEqual([grpc.status.INVALID_ARGUMENT, 'config.timeout_seconds must be at most 86400 (a day)']);
});

it('bounds what a session holds: message size, context size and history length', async () => {
  const sessions = stack.client('session');
  const refusal = async (call: Promise<unknown>) => {
    const err = await call.then(
      () => undefined,
      (error: grpc.ServiceError) => error,
    );
    return [err?.code, err?.details];
  };
  expect(await refusal(unaryCall(sessions, 'CreateSession', { max_history: 10_000 }))).toEqual([grpc.status.INVALID_ARGUMENT, 'max_history must be <= 1000']);
  const bigContext = { fields: { blob: { stringValue: 'x'.repeat(70_000) } } };
  expect(await refusal(unaryCall(sessions, 'CreateSession', { initial_context: bigContext }))).toEqual([
    grpc.status.INVALID_ARGUMENT,
    expect.stringMatching(/^initial_context is \d+ bytes as JSON; the limit is 65536$/),
  ]);
  const { session_id } = await unaryCall(sessions, 'CreateSession', {});
  expect(await refusal(unaryCall(sessions, 'UpdateSession', { session_id, context_updates: bigContext }))).toEqual([
    grpc.status.INVALID_ARGUMENT,
    expect.stringMatching(/^context_updates is \d+ bytes/),
  ]);
  expect(await refusal(unaryCall(sessions, 'AddMessage', { session_id, message: { role: 'user', content: 'x'.repeat(300 * 1024) } }))).toEqual([
    grpc.status.INVALID_ARGUMENT,
    'message.content is 307200 bytes; the limit is 262144',
  ]);
});
