import { z } from 'zod';
import type { SecretSource } from '../../secrets';

// web_search's settings (read with the rest in core/config.ts): which provider, where, and its key.

export const webSearchEnvSchema = z.object({
  WEFT_WEB_SEARCH_PROVIDER: z
    .enum(['searxng', 'brave'])
    .optional()
    .describe("The `web_search` tool's provider: `searxng` (with WEFT_WEB_SEARCH_URL) or `brave` (with WEFT_WEB_SEARCH_API_KEY). Unset: no `web_search` tool."),
  WEFT_WEB_SEARCH_URL: z.url().optional().describe("SearXNG: the instance's base URL (required). Brave: the endpoint, when not Brave's own."),
  // Read through the secret source (core/secrets.ts); declared so they are known settings.
  WEFT_WEB_SEARCH_API_KEY: z.string().optional().describe("Brave Search's API key."),
  WEFT_WEB_SEARCH_API_KEY_FILE: z.string().optional().describe("A file holding Brave Search's API key (instead of WEFT_WEB_SEARCH_API_KEY)."),
});

const braveEndpoint = 'https://api.search.brave.com/res/v1/web/search';

/** The provider web_search asks; absent: no web_search tool. */
export type WebSearchSettings = { provider: 'searxng'; url: string } | { provider: 'brave'; url: string; apiKey: string };

/** Brave's key comes from WEFT_WEB_SEARCH_API_KEY (or the file WEFT_WEB_SEARCH_API_KEY_FILE names). */
export function webSearchSettingsOf(e: z.infer<typeof webSearchEnvSchema>, secrets: SecretSource): { webSearch?: WebSearchSettings } {
  const provider = e.WEFT_WEB_SEARCH_PROVIDER;
  if (!provider) return {};
  if (provider === 'searxng') {
    if (!e.WEFT_WEB_SEARCH_URL) throw new Error('invalid configuration: WEFT_WEB_SEARCH_URL names the SearXNG instance web_search asks');
    return { webSearch: { provider, url: e.WEFT_WEB_SEARCH_URL } };
  }
  const apiKey = secrets('WEFT_WEB_SEARCH_API_KEY');
  if (!apiKey) throw new Error('invalid configuration: WEFT_WEB_SEARCH_API_KEY (or WEFT_WEB_SEARCH_API_KEY_FILE) is the Brave Search API key web_search needs');
  return { webSearch: { provider, url: e.WEFT_WEB_SEARCH_URL ?? braveEndpoint, apiKey } };
}
