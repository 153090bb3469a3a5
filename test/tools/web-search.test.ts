import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../core/config';
import { createWeftToolRegistry, type ToolRegistry } from '../../core/tools';

// web_search against local servers that answer as the providers do: SearXNG's JSON API and the
// Brave Search API (its X-Subscription-Token header), through the real outbound guard.

let server: Server;
let base: string;
const seen: IncomingMessage[] = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req);
    const url = new URL(req.url!, 'http://local');
    const q = url.searchParams.get('q') ?? '';
    if (url.pathname === '/search' && url.searchParams.get('format') === 'json') {
      // SearXNG's response: results with title, url and content (its snippet), and more fields.
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          query: q,
          number_of_results: 2,
          results: [
            { title: `About ${q}`, url: 'https://example.org/a', content: 'first snippet', engine: 'duckduckgo', score: 2 },
            { title: 'No link', content: 'dropped: no url' },
            { title: 'Second', url: 'https://example.org/b', content: 'second snippet', engine: 'wikipedia', score: 1 },
          ],
          answers: [],
          suggestions: [],
        }),
      );
    }
    if (url.pathname === '/away/search') {
      // An instance that sends its callers elsewhere.
      return void res.writeHead(302, { location: `http://localhost:${(server.address() as AddressInfo).port}/search?format=json&q=x` }).end();
    }
    if (url.pathname === '/res/v1/web/search') {
      if (req.headers['x-subscription-token'] !== 'brave-key')
        return void res.writeHead(401, { 'content-type': 'application/json' }).end('{"type":"ErrorResponse"}');
      // Brave's response: web.results with title, url and description.
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          type: 'search',
          query: { original: q },
          web: {
            type: 'search',
            results: Array.from({ length: Number(url.searchParams.get('count')) }, (_, i) => ({
              title: `Brave ${i}`,
              url: `https://brave.example/${i}`,
              description: `about ${q} ${i}`,
              age: '1 day',
            })),
          },
        }),
      );
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const context = { tenantId: 't', userId: 'u', roles: [], sessionId: '', taskId: 'search-task' };
const registryWith = (env: Record<string, string>): ToolRegistry =>
  createWeftToolRegistry({ ...loadConfig(env), workspaceDir: mkdtempSync(path.join(tmpdir(), 'weft-search-')) });

it('is offered only when a provider is configured', () => {
  expect(registryWith({}).get('web_search')).toBeUndefined();
  expect(() => loadConfig({ WEFT_WEB_SEARCH_PROVIDER: 'searxng' })).toThrow('WEFT_WEB_SEARCH_URL names the SearXNG instance');
  expect(() => loadConfig({ WEFT_WEB_SEARCH_PROVIDER: 'brave' })).toThrow('WEFT_WEB_SEARCH_API_KEY');
  expect(() => loadConfig({ WEFT_WEB_SEARCH_PROVIDER: 'bing' })).toThrow('WEFT_WEB_SEARCH_PROVIDER');
});

it('searches a SearXNG instance: title, URL and snippet of the results that have a URL', async () => {
  const registry = registryWith({ WEFT_WEB_SEARCH_PROVIDER: 'searxng', WEFT_WEB_SEARCH_URL: base });
  expect(registry.get('web_search')).toMatchObject({ category: 'search', rateLimitPerMinute: 120 });
  expect(await registry.execute('web_search', { query: 'durable execution' }, context)).toEqual({
    ok: true,
    content: {
      query: 'durable execution',
      provider: 'searxng',
      results: [
        { title: 'About durable execution', url: 'https://example.org/a', snippet: 'first snippet' },
        { title: 'Second', url: 'https://example.org/b', snippet: 'second snippet' },
      ],
    },
  });
  expect(await registry.execute('web_search', { query: '' }, context)).toMatchObject({ ok: false, error: { category: 'validation' } });
});

it('searches the Brave Search API with its key, as many results as asked, and says so when the key is refused', async () => {
  const brave = registryWith({ WEFT_WEB_SEARCH_PROVIDER: 'brave', WEFT_WEB_SEARCH_URL: `${base}/res/v1/web/search`, WEFT_WEB_SEARCH_API_KEY: 'brave-key' });
  const found = await brave.execute('web_search', { query: 'temporal', max_results: 3 }, context);
  expect(found).toEqual({
    ok: true,
    content: {
      query: 'temporal',
      provider: 'brave',
      results: [0, 1, 2].map((i) => ({ title: `Brave ${i}`, url: `https://brave.example/${i}`, snippet: `about temporal ${i}` })),
    },
  });
  const wrongKey = registryWith({ WEFT_WEB_SEARCH_PROVIDER: 'brave', WEFT_WEB_SEARCH_URL: `${base}/res/v1/web/search`, WEFT_WEB_SEARCH_API_KEY: 'stolen' });
  expect(await wrongKey.execute('web_search', { query: 'temporal' }, context)).toEqual({
    ok: false,
    error: { category: 'network', message: `HTTP 401 from ${base}` },
  });
});

it('goes through the outbound guard: only the configured host, and WEB_SEARCH_RATE_LIMIT sets its rate', async () => {
  const limited = registryWith({ WEFT_WEB_SEARCH_PROVIDER: 'searxng', WEFT_WEB_SEARCH_URL: base, WEB_SEARCH_RATE_LIMIT: '1' });
  expect((await limited.execute('web_search', { query: 'one' }, context)).ok).toBe(true);
  expect(await limited.execute('web_search', { query: 'two' }, context)).toMatchObject({
    ok: false,
    error: { message: 'web_search is limited to 1 calls per minute; retry in 60 s' },
  });
  // A redirect to another host is refused by the guard: the configured search host alone is allowed.
  const redirecting = registryWith({ WEFT_WEB_SEARCH_PROVIDER: 'searxng', WEFT_WEB_SEARCH_URL: `${base}/away` });
  const before = seen.length;
  expect(await redirecting.execute('web_search', { query: 'x' }, context)).toMatchObject({
    ok: false,
    error: { message: expect.stringContaining('localhost') },
  });
  expect(seen.slice(before).map((req) => req.headers.host)).toEqual([`127.0.0.1:${(server.address() as AddressInfo).port}`]);
});
