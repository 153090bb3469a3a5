import type { SearchProvider } from '../web-search/search-providers';
import { toolMetadata, type ToolDefinition } from '../tool';

// Searches the web through the configured provider (WEFT_WEB_SEARCH_PROVIDER): results with title,
// URL and snippet. Its rate limit is the seed's (120 a minute; WEB_SEARCH_RATE_LIMIT overrides).

export function webSearchTool(provider: SearchProvider): ToolDefinition {
  return {
    ...toolMetadata({
      name: 'web_search',
      version: '1.0.0',
      description: `Searches the web (${provider.name}) and returns the top results: title, URL and snippet.`,
      category: 'search',
      parameters: {
        type: 'object',
        properties: {
          query: { type: 'string', minLength: 1, maxLength: 1000, description: 'what to search for' },
          max_results: { type: 'integer', minimum: 1, maximum: 20, default: 5, description: 'how many results (1-20)' },
        },
        required: ['query'],
        additionalProperties: false,
      },
      timeoutMs: 30_000,
      rateLimitPerMinute: 120,
    }),
    async execute(args, context) {
      const query = String(args.query);
      const results = await provider.search(query, Number(args.max_results ?? 5), context.signal);
      return { query, provider: provider.name, results };
    },
  };
}
