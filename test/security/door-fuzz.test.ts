import * as grpc from '@grpc/grpc-js';
import fc from 'fast-check';
import { fullServiceNames, restRoutes, shannonStreamRoute, streamRoute } from '../../api/rest/routes';
import { methodTypes } from '../../protos/json-mapping';
import { pathSegment, requestBytes, restBody, restHeaders } from '../support/door-fuzz';
import { apiServices, sendRaw, serviceMethods, verdicts } from '../support/fuzz';
import { startTestStack, type TestStack } from '../support/stack';

// Property-based fuzzing of the whole front door: WEFT_TEST_FUZZ_REQUESTS (default 10,000) requests
// spread over every RPC of every service and every REST route, each built by fast-check from the
// request's own descriptor. Each class of call gets only the answers documented for it: with the
// key, the RPC's verdict (never a hang, INTERNAL, UNKNOWN, UNAVAILABLE or UNAUTHENTICATED; REST:
// never 401 or a 5xx); without it, UNAUTHENTICATED (REST 401), or INVALID_ARGUMENT (400) for bytes
// refused before the key is read, and nothing served but the public health and OpenAPI document.
// The server still serves afterwards. The counts and the distribution of answers are printed.

const total = Number(process.env.WEFT_TEST_FUZZ_REQUESTS ?? 10_000);
const concurrency = 16;
const hangMs = 20_000;

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());

/** What a keyed call may answer: the RPC's verdict, or a limit (rate, size). */
const keyedAnswers: ReadonlySet<grpc.status> = new Set([...verdicts, grpc.status.RESOURCE_EXHAUSTED]);
/** What a call without a key may answer: refused, for want of the key or because its bytes are no request. */
const unkeyedAnswers: ReadonlySet<grpc.status> = new Set([grpc.status.UNAUTHENTICATED, grpc.status.INVALID_ARGUMENT]);
/** The seed's ai.AIService health answers anyone. */
const publicRpcs = new Set(['ai.AIService/HealthCheck']);
const publicRoutes = new Set(['/openapi.json']);

interface Outcome {
  target: string;
  answer: string;
  surprise?: string;
}

/** One generated gRPC call: any RPC, hostile bytes, usually a valid key. */
function grpcCalls(clients: Map<string, grpc.Client>): fc.Arbitrary<() => Promise<Outcome>> {
  const rpcs = apiServices.flatMap(([service]) => serviceMethods(service).map((method) => ({ service, ...method })));
  return fc.constantFrom(...rpcs).chain(({ service, rpc, serverStreaming }) =>
    fc
      .tuple(
        requestBytes(methodTypes(service, rpc).request),
        fc.integer({ min: 0, max: 4 }).map((draw) => draw > 0),
      )
      .map(([bytes, keyed]) => async (): Promise<Outcome> => {
        const metadata = new grpc.Metadata();
        if (keyed) metadata.set('authorization', `Bearer ${stack.apiKey}`);
        const began = Date.now();
        const { code, details } = await sendRaw(clients.get(service)!, `/${service}/${rpc}`, bytes, metadata, serverStreaming, hangMs);
        const answer = grpc.status[code]!;
        const hung = code === grpc.status.DEADLINE_EXCEEDED && Date.now() - began >= hangMs;
        const expected = keyed ? keyedAnswers : publicRpcs.has(`${service}/${rpc}`) ? new Set([grpc.status.OK, grpc.status.INVALID_ARGUMENT]) : unkeyedAnswers;
        const surprise = hung ? 'no answer (hang)' : !expected.has(code) ? `${keyed ? 'with' : 'without'} a key, ${answer}: ${details}` : undefined;
        return { target: `${service.split('.').pop()}/${rpc}`, answer, ...(surprise ? { surprise } : {}) };
      }),
  );
}

const restTargets = [
  ...restRoutes.map((route) => ({
    method: route.method,
    path: route.path,
    type: methodTypes(fullServiceNames[route.service], route.rpc).request,
    query: route.query ?? [],
  })),
  ...[streamRoute, shannonStreamRoute].map((route) => ({ method: 'GET', path: route.path, type: undefined, query: [...route.query] })),
  ...['/tools/list', '/tools/:name/schema', '/tools/:name/metadata', '/tools/sources', '/openapi.json', '/no/such/route'].map((path) => ({
    method: 'GET',
    path,
    type: undefined,
    query: ['category'],
  })),
  { method: 'POST', path: '/tools/sources', type: undefined, query: [] },
  { method: 'DELETE', path: '/tools/sources/:name', type: undefined, query: ['scope'] },
];

/** One generated REST call: any route, hostile path parameters, query, body and headers. */
function restCalls(base: string): fc.Arbitrary<() => Promise<Outcome>> {
  return fc.constantFrom(...restTargets).chain((target) =>
    fc
      .record({
        segments: fc.array(pathSegment, { minLength: 2, maxLength: 2 }),
        query: fc.dictionary(fc.constantFrom(...target.query, 'unknown'), pathSegment, { maxKeys: 3 }),
        body: target.method === 'GET' || target.method === 'DELETE' ? fc.constant(undefined) : restBody(target.type),
        headers: restHeaders(stack.apiKey),
      })
      .map(({ segments, query, body, headers }) => async (): Promise<Outcome> => {
        let segment = 0;
        const path = target.path.replace(/:\w+/g, () => segments[segment++ % 2]!);
        const search = Object.entries(query)
          .map(([name, value]) => `${name}=${value}`)
          .join('&');
        try {
          const response = await fetch(`${base}${path}${search ? `?${search}` : ''}`, {
            method: target.method,
            headers: { ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
            ...(body !== undefined ? { body } : {}),
            signal: AbortSignal.timeout(hangMs),
          });
          // An accepted event stream stays open by design: its headers are the answer.
          if (!response.headers.get('content-type')?.startsWith('text/event-stream')) await response.text();
          else await response.body?.cancel();
          const answer = `HTTP ${response.status}`;
          const keyed = headers.authorization === `Bearer ${stack.apiKey}`;
          const served = response.status < 300 && !publicRoutes.has(target.path);
          const surprise =
            response.status >= 500 || (keyed && response.status === 401) || (!keyed && served) ? `${keyed ? 'with' : 'without'} a key, ${answer}` : undefined;
          return { target: `${target.method} ${target.path}`, answer, ...(surprise ? { surprise } : {}) };
        } catch (err) {
          const cause = (err as Error & { cause?: Error }).cause;
          return {
            target: `${target.method} ${target.path}`,
            answer: 'no answer',
            surprise: `no answer: ${(err as Error).message}${cause ? ` (${cause.message})` : ''}`,
          };
        }
      }),
  );
}

/** Counts of each key, most frequent first, as lines. */
function distribution(values: string[]): string {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([value, count]) => `${String(count).padStart(6)}  ${value}`)
    .join('\n');
}

it(`answers ${total} generated requests over every RPC and REST route with documented codes only`, async () => {
  const clients = new Map(apiServices.map(([service, port]) => [service, new grpc.Client(`127.0.0.1:${stack.api[port]}`, grpc.credentials.createInsecure())]));
  stack.model.on(() => true, { content: 'fuzzed answer' });
  const calls = fc.sample(
    fc.oneof({ weight: 7, arbitrary: grpcCalls(clients) }, { weight: 3, arbitrary: restCalls(`http://127.0.0.1:${stack.api.httpPort}`) }),
    { numRuns: total, seed: 20261130 },
  );
  const outcomes: Outcome[] = [];
  try {
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < calls.length) outcomes.push(await calls[next++]!());
      }),
    );
  } finally {
    for (const client of clients.values()) client.close();
  }
  console.log(
    `door fuzz: ${outcomes.length} requests\n\nby target:\n${distribution(outcomes.map((o) => o.target))}\n\nby answer:\n${distribution(outcomes.map((o) => o.answer))}`,
  );
  expect(outcomes).toHaveLength(total);
  expect(outcomes.flatMap((o) => (o.surprise ? [`${o.target}: ${o.surprise}`] : []))).toEqual([]);
  // Still serving, on every port.
  expect((await fetch(`http://127.0.0.1:${stack.api.httpPort}/openapi.json`)).status).toBe(200);
}, 600_000);
