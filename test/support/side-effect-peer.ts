import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createDestinationPolicy } from '../../core/tools/outbound/destination-policy';
import { createOutboundHttp } from '../../core/tools/outbound/outbound-http';
import { loadOpenApiSpec } from '../../core/tools/openapi/openapi-spec';
import { openApiSourceSchema, openApiTools } from '../../core/tools/openapi/openapi-tools';
import { secretsFrom } from '../../core/secrets';
import type { ToolRegistry } from '../../core/tools/registry';
import { testToolRegistry } from './stack';

// A service with side effects, for tests that kill workers mid-call: POST /bookings (no
// idempotency key: at_most_once) and POST /payments (takes an Idempotency-Key: keyed), each with an
// optional `ref` saying whose it is. It counts every request and can hold requests unanswered, so a
// test decides when a call "is in flight", or answer each after a while, so that crashes land on calls.

const refParameter = { name: 'ref', in: 'query', required: false, schema: { type: 'string' } };

const spec = {
  openapi: '3.1.0',
  info: { title: 'Side effects', version: '1.0.0' },
  servers: [{ url: '/api' }],
  paths: {
    '/bookings': { post: { operationId: 'book', summary: 'Books a table.', parameters: [refParameter] } },
    '/payments': {
      post: {
        operationId: 'pay',
        summary: 'Pays.',
        parameters: [refParameter, { name: 'Idempotency-Key', in: 'header', required: true, schema: { type: 'string' } }],
      },
    },
  },
};

export interface SideEffectPeer {
  base: string;
  requests: Array<{ path: string; ref?: string; idempotencyKey?: string }>;
  /** While true, requests are received (and counted) but not answered. */
  holding: boolean;
  /** Requests received and not answered yet. */
  inFlight(): number;
  stop(): Promise<void>;
}

export async function startSideEffectPeer(options: { answerAfterMs?: number } = {}): Promise<SideEffectPeer> {
  const held: ServerResponse[] = [];
  let unanswered = 0;
  const peer: SideEffectPeer = { base: '', requests: [], holding: false, inFlight: () => unanswered, stop: async () => undefined };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://peer');
    const path = url.pathname;
    if (path === '/openapi.json') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(spec));
    const key = req.headers['idempotency-key'] as string | undefined;
    const ref = url.searchParams.get('ref');
    peer.requests.push({ path, ...(ref ? { ref } : {}), ...(key ? { idempotencyKey: key } : {}) });
    unanswered += 1;
    res.once('close', () => (unanswered -= 1));
    if (peer.holding) return void held.push(res);
    const answer = () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ done: path }));
    if (options.answerAfterMs) setTimeout(answer, options.answerAfterMs);
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  peer.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  peer.stop = () =>
    new Promise((resolve) => {
      held.forEach((res) => res.destroy());
      server.close(() => resolve());
    });
  return peer;
}

/** The test tools plus the peer's operations as `effects_book` and `effects_pay`. */
export async function toolsWithSideEffects(base: string): Promise<ToolRegistry> {
  const source = openApiSourceSchema.parse({ name: 'effects', spec_url: `${base}/openapi.json` });
  const http = createOutboundHttp({
    policy: createDestinationPolicy('OPENAPI_ALLOWED_DOMAINS', ['127.0.0.1']),
    timeoutMs: 60_000,
    breakerFailures: 5,
    breakerRecoveryMs: 1_000,
    maxAttempts: 3,
  });
  const tools = testToolRegistry();
  tools.add(openApiTools(await loadOpenApiSpec({ url: source.spec_url! }, http, 1024 * 1024), source, http, secretsFrom({})));
  return tools;
}
