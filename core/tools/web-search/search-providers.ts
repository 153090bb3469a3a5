import { readLimited, type OutboundHttp } from '../outbound/outbound-http';
import { ToolError } from '../tool';

// Where web_search asks: SearXNG's JSON API (self-hosted, no key) or the Brave Search API (a key).
// Each speaks its provider's real protocol through the outbound guard and returns the same shape.

export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

export interface SearchProvider {
  name: string;
  search(query: string, count: number, signal?: AbortSignal): Promise<SearchResult[]>;
}

const maxResponseBytes = 2 * 1024 * 1024;

async function fetchJson(outbound: OutboundHttp, url: URL, headers: Record<string, string>, signal?: AbortSignal): Promise<unknown> {
  const response = await outbound.fetch(url, { method: 'GET', headers: { accept: 'application/json', ...headers }, ...(signal ? { signal } : {}) });
  if (response.status >= 400) {
    await response.body?.cancel();
    throw new ToolError('network', `HTTP ${response.status} from ${url.origin}`);
  }
  const text = await readLimited(response, maxResponseBytes);
  try {
    return JSON.parse(text);
  } catch {
    throw new ToolError('execution', `${url.origin} did not answer with JSON`);
  }
}

const text = (value: unknown) => (typeof value === 'string' ? value : '');

/** Keeps the results that name a URL, in the shape every provider returns. */
function resultsOf(items: unknown, snippetField: string, count: number): SearchResult[] {
  if (!Array.isArray(items)) return [];
  return items
    .map((item: Record<string, unknown>) => ({ title: text(item.title), url: text(item.url), snippet: text(item[snippetField]) }))
    .filter((result) => result.url !== '')
    .slice(0, count);
}

/** SearXNG: GET <base>/search?q=...&format=json (the instance must enable the json format). */
export function searxngProvider(baseUrl: string, outbound: OutboundHttp): SearchProvider {
  return {
    name: 'searxng',
    async search(query, count, signal) {
      const url = new URL('search', baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
      url.searchParams.set('q', query);
      url.searchParams.set('format', 'json');
      const body = (await fetchJson(outbound, url, {}, signal)) as { results?: unknown };
      return resultsOf(body.results, 'content', count);
    },
  };
}

/** Brave Search: GET <endpoint>?q=...&count=N with the X-Subscription-Token header. */
export function braveProvider(endpoint: string, apiKey: string, outbound: OutboundHttp): SearchProvider {
  return {
    name: 'brave',
    async search(query, count, signal) {
      const url = new URL(endpoint);
      url.searchParams.set('q', query);
      url.searchParams.set('count', String(count));
      const body = (await fetchJson(outbound, url, { 'x-subscription-token': apiKey }, signal)) as { web?: { results?: unknown } };
      return resultsOf(body.web?.results, 'description', count);
    },
  };
}
