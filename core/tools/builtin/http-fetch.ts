import { readLimited, type OutboundHttp } from '../outbound/outbound-http';
import { ToolError, toolMetadata, type ToolDefinition } from '../tool';

// Fetches a web page or API response from a host on WEFT_HTTP_FETCH_ALLOWED_DOMAINS (nothing by
// default), through the outbound guard: no private addresses unless listed, redirects checked,
// breaker and retries per origin. HTTP errors are network errors, as the seed classifies them.

const maxBodyBytes = 256 * 1024;

export function httpFetchTool(outbound: OutboundHttp): ToolDefinition {
  return {
    ...toolMetadata({
      name: 'http_fetch',
      version: '1.0.0',
      description: 'Fetches a URL (GET) from an allowed host and returns its status, content type and text (up to 256 KB).',
      category: 'web',
      parameters: {
        type: 'object',
        properties: { url: { type: 'string', minLength: 1, maxLength: 2048, description: 'an http(s) URL' } },
        required: ['url'],
        additionalProperties: false,
      },
      timeoutMs: 30_000,
      rateLimitPerMinute: 120,
    }),
    async execute(args, context) {
      let url: URL;
      try {
        url = new URL(String(args.url));
      } catch {
        throw new ToolError('validation', `url: not a valid URL: ${String(args.url)}`);
      }
      const response = await outbound.fetch(url, { method: 'GET', ...(context.signal ? { signal: context.signal } : {}) });
      if (response.status >= 400) {
        await response.body?.cancel();
        throw new ToolError('network', `HTTP ${response.status} from ${url.origin}`);
      }
      return {
        url: response.url || url.toString(),
        status: response.status,
        content_type: response.headers.get('content-type') ?? '',
        body: await readLimited(response, maxBodyBytes),
      };
    },
  };
}
