import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createDestinationPolicy } from '../../core/tools/outbound/destination-policy';
import { createOutboundHttp, type OutboundOptions } from '../../core/tools/outbound/outbound-http';
import { ToolError } from '../../core/tools/tool';

// A peer that fails on command: each path answers as the test says; every request is counted.

type Behaviour = (req: IncomingMessage, res: ServerResponse) => void;
let peer: Server;
let base: string;
const behaviours = new Map<string, Behaviour>();
const hits = new Map<string, number>();

beforeAll(async () => {
  peer = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    (behaviours.get(path) ?? ((_q, r) => r.writeHead(404).end('no such path')))(req, res);
  });
  await new Promise<void>((resolve) => peer.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(peer.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => peer.close(resolve)));

const ok: Behaviour = (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('fine');
const outbound = (allow: string[], overrides: Partial<OutboundOptions> = {}) =>
  createOutboundHttp({
    policy: createDestinationPolicy('TEST_ALLOWED_DOMAINS', allow),
    timeoutMs: 2_000,
    breakerFailures: 3,
    breakerRecoveryMs: 300,
    maxAttempts: 3,
    initialBackoffMs: 10,
    ...overrides,
  });
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected the request to fail');
    },
    (err: unknown) => {
      if (!(err instanceof ToolError)) throw err;
      return { category: err.category, message: err.message };
    },
  );

describe('the destination policy', () => {
  it('reaches a listed host, and refuses unlisted hosts, other schemes and credentials in URLs', async () => {
    behaviours.set('/ok', ok);
    expect((await outbound(['127.0.0.1']).fetch(`${base}/ok`)).status).toBe(200);
    expect(await failure(outbound(['api.example.com']).fetch(`${base}/ok`))).toEqual({
      category: 'validation',
      message: 'host 127.0.0.1 is not in the allowlist (TEST_ALLOWED_DOMAINS)',
    });
    expect(await failure(outbound(['*']).fetch('file:///etc/passwd'))).toMatchObject({
      message: 'only http and https URLs are allowed, not file: (TEST_ALLOWED_DOMAINS)',
    });
    expect(await failure(outbound(['127.0.0.1']).fetch(`http://user:pw@127.0.0.1:1/`))).toMatchObject({ category: 'validation' });
  });

  it('refuses private and loopback addresses unless listed by name, whether written, resolved or redirected to', async () => {
    const anyPublic = outbound(['*']);
    for (const url of [`${base}/ok`, 'http://[::1]:1/', 'http://10.1.2.3/', 'http://169.254.169.254/latest/meta-data/', 'http://2130706433/']) {
      expect(await failure(anyPublic.fetch(url))).toMatchObject({ category: 'validation', message: expect.stringContaining('non-public address') });
    }
    // A name that resolves to loopback is refused on the address the connection would use.
    const port = new URL(base).port;
    expect(await failure(outbound(['localhost']).fetch(`http://localhost.:${port}/ok`))).toMatchObject({
      message: expect.stringContaining('not in the allowlist'),
    });
    expect(await failure(outbound(['*']).fetch(`http://localhost:${port}/ok`))).toMatchObject({
      message: expect.stringMatching(/^localhost resolves to (127\.0\.0\.1|::1), a non-public address/),
    });
    expect((await outbound(['localhost']).fetch(`http://localhost:${port}/ok`)).status).toBe(200);
    // A listed host redirecting to an unlisted one (here the cloud metadata address) is refused at the redirect.
    behaviours.set('/jump', (_req, res) => res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end());
    expect(await failure(outbound(['127.0.0.1']).fetch(`${base}/jump`))).toMatchObject({
      category: 'validation',
      message: 'host 169.254.169.254 is not in the allowlist (TEST_ALLOWED_DOMAINS)',
    });
    behaviours.set('/hop', (_req, res) => res.writeHead(301, { location: '/ok' }).end());
    expect(await (await outbound(['127.0.0.1']).fetch(`${base}/hop`)).text()).toBe('fine');
  });
});

describe('resilience', () => {
  it('checks a destination ahead of any request: its host, and every address it resolves to now', async () => {
    const anyPublic = createDestinationPolicy('TEST_ALLOWED_DOMAINS', ['*']);
    await expect(anyPublic.checkDestination(new URL('http://localhost:1/mcp'))).rejects.toThrow(
      /^localhost resolves to (127\.0\.0\.1|::1), a non-public address, which is refused unless listed \(TEST_ALLOWED_DOMAINS\)$/,
    );
    await expect(anyPublic.checkDestination(new URL('http://[fd00::1]/'))).rejects.toThrow('a non-public address');
    await expect(createDestinationPolicy('TEST_ALLOWED_DOMAINS', ['localhost']).checkDestination(new URL('http://localhost:1/mcp'))).resolves.toBeUndefined();
  });

  it('keeps credentials with their origin: a redirect to another origin carries no Authorization, cookie or API-key header', async () => {
    // The second origin: the same address on another port.
    let seen: IncomingMessage['headers'] | undefined;
    const other = createServer((req, res) => {
      seen = req.headers;
      res.writeHead(200).end('elsewhere');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const otherBase = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    let sameOrigin: IncomingMessage['headers'] | undefined;
    behaviours.set('/away', (_req, res) => res.writeHead(302, { location: `${otherBase}/landing` }).end());
    behaviours.set('/near', (_req, res) => res.writeHead(302, { location: '/landed' }).end());
    behaviours.set('/landed', (req, res) => {
      sameOrigin = req.headers;
      res.writeHead(200).end('here');
    });
    const credentials = { authorization: 'Bearer secret-token', cookie: 'session=secret', 'x-api-key': 'secret-key', accept: 'application/json' };
    try {
      expect(await (await outbound(['127.0.0.1']).fetch(`${base}/away`, { headers: credentials })).text()).toBe('elsewhere');
      expect(seen).toMatchObject({ accept: 'application/json' });
      expect(JSON.stringify(seen)).not.toContain('secret');
      // Within the origin, the request keeps its headers.
      await outbound(['127.0.0.1']).fetch(`${base}/near`, { headers: credentials });
      expect(sameOrigin).toMatchObject({ authorization: 'Bearer secret-token', cookie: 'session=secret', 'x-api-key': 'secret-key' });
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
  });

  it('retries a dropped connection with backoff, and gives up with a network error', async () => {
    let drops = 1;
    behaviours.set('/flaky', (req, res) => (drops-- > 0 ? req.socket.destroy() : ok(req, res)));
    expect((await outbound(['127.0.0.1']).fetch(`${base}/flaky`)).status).toBe(200);
    expect(hits.get('/flaky')).toBe(2);

    behaviours.set('/dead', (req) => req.socket.destroy());
    expect(await failure(outbound(['127.0.0.1'], { breakerFailures: 10 }).fetch(`${base}/dead`))).toMatchObject({
      category: 'network',
      message: expect.stringContaining(`request to ${base} failed`),
    });
    expect(hits.get('/dead')).toBe(3);
    // An HTTP error status is an answer, not retried.
    behaviours.set('/broken', (_req, res) => res.writeHead(503).end());
    expect((await outbound(['127.0.0.1'], { breakerFailures: 10 }).fetch(`${base}/broken`)).status).toBe(503);
    expect(hits.get('/broken')).toBe(1);
  });

  it('times out a slow peer', async () => {
    behaviours.set('/slow', (_req, res) => setTimeout(() => ok(_req, res), 500));
    expect(await failure(outbound(['127.0.0.1'], { timeoutMs: 100, maxAttempts: 1 }).fetch(`${base}/slow`))).toEqual({
      category: 'network',
      message: `request to ${base} timed out after 100 ms`,
    });
  });

  it("opens an origin's circuit after consecutive failures, probes it once half-open, and closes on success", async () => {
    const http = outbound(['127.0.0.1'], { maxAttempts: 1 });
    let healthy = false;
    behaviours.set('/svc', (req, res) => (healthy ? ok(req, res) : res.writeHead(500).end()));
    hits.set('/svc', 0);
    for (let i = 0; i < 3; i += 1) expect((await http.fetch(`${base}/svc`)).status).toBe(500);
    expect(http.breakerState(base)).toBe('open');
    expect(await failure(http.fetch(`${base}/svc`))).toMatchObject({ category: 'circuit_open' });
    expect(hits.get('/svc')).toBe(3);

    await new Promise((resolve) => setTimeout(resolve, 350));
    expect((await http.fetch(`${base}/svc`)).status).toBe(500); // the probe fails: open again
    expect(http.breakerState(base)).toBe('open');
    await new Promise((resolve) => setTimeout(resolve, 350));
    healthy = true;
    expect((await http.fetch(`${base}/svc`)).status).toBe(200);
    expect(http.breakerState(base)).toBe('closed');
    expect(hits.get('/svc')).toBe(5);
  });

  it('counts a call once toward the circuit, however many attempts its retries made (MCP_CB_FAILURES counts calls)', async () => {
    const http = outbound(['127.0.0.1'], { maxAttempts: 3, breakerFailures: 3 });
    behaviours.set('/gone', (req) => req.socket.destroy());
    hits.set('/gone', 0);
    for (let call = 1; call <= 2; call += 1) {
      expect(await failure(http.fetch(`${base}/gone`))).toMatchObject({ category: 'network' });
      expect(http.breakerState(base)).toBe('closed');
    }
    expect(hits.get('/gone')).toBe(6);
    expect(await failure(http.fetch(`${base}/gone`))).toMatchObject({ category: 'network' });
    expect(http.breakerState(base)).toBe('open');
  });
});
