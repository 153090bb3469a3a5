import { Client, SSEClientTransport, SdkHttpError, StreamableHTTPClientTransport, type FetchLike } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { weftVersion } from '../../version';
import { parseJsonList } from '../json-list-setting';
import type { SecretSource } from '../../secrets';
import type { RequestInit } from 'undici';
import type { OutboundHttp } from '../outbound/outbound-http';
import { ToolError, sourcedToolName, toolMetadata, type ToolDefinition } from '../tool';

// A Model Context Protocol server as a source of tools, through the official MCP client (v2 SDK):
// Streamable HTTP, or SSE for servers that predate it. Its `tools/list` becomes Weft tools named
// `<server>_<tool>` with the server's input schemas; each call is a `tools/call`. Requests go
// through the outbound guard (MCP_ALLOWED_DOMAINS, breaker per origin, retries). A dropped
// connection or an expired session is reconnected on the next call.
//
// Over Streamable HTTP the client first asks `server/discover`: a server that answers it with
// 2026-07-28 among its versions is spoken to in that revision (stateless, no session); any other
// answer means a 2025 server, which gets the `initialize` handshake and its own latest revision
// (2025-11-25 at most). SSE is older than both, so it is spoken only in 2025 revisions.

export const mcpServerSchema = z.strictObject({
  /** Prefix of the server's tool names: letters, digits, "_" and "-". */
  name: z.string().regex(/^[A-Za-z0-9_-]{1,32}$/),
  url: z.string().url(),
  /** The environment variable holding a bearer token for it (never the token itself). */
  bearer_token_env: z.string().min(1).optional(),
  /** Calls per minute of each of its tools; MCP_RATE_LIMIT_DEFAULT otherwise. */
  rate_limit: z.number().int().nonnegative().optional(),
  cost_per_use: z.number().nonnegative().optional(),
  timeout_ms: z.number().int().positive().optional(),
});
export type McpServerConfig = z.infer<typeof mcpServerSchema>;

/** WEFT_MCP_SERVERS: a JSON array of servers. */
export function parseMcpServers(json: string | undefined): McpServerConfig[] {
  return parseJsonList('WEFT_MCP_SERVERS', json, mcpServerSchema);
}

export interface McpServerTools {
  tools: ToolDefinition[];
  close(): Promise<void>;
}

interface ContentItem {
  type: string;
  text?: string;
}

/** What a tool call returns to the agent: its structured content, or its text, or its content items. */
function outputOf(result: { content?: unknown; structuredContent?: unknown }): unknown {
  if (result.structuredContent !== undefined) return result.structuredContent;
  const items = (result.content ?? []) as ContentItem[];
  if (items.every((item) => item.type === 'text')) return items.map((item) => item.text ?? '').join('\n');
  return items;
}

/**
 * The outbound guard's own error (a refused host, an open circuit) inside an SDK error: the SDK
 * wraps what its fetch throws during the version probe, and the guard's category must reach the agent.
 */
function guardErrorIn(err: unknown): ToolError | undefined {
  if (err instanceof ToolError) return err;
  const cause = (err as { cause?: unknown } | undefined)?.cause;
  return cause instanceof ToolError ? cause : undefined;
}

/** Whether a request body is a `tools/call` of one of these tools. */
function callsOneOf(tools: ReadonlySet<string>, body: unknown): boolean {
  if (tools.size === 0 || typeof body !== 'string') return false;
  const message = JSON.parse(body) as { method?: unknown; params?: { name?: unknown } };
  return message.method === 'tools/call' && typeof message.params?.name === 'string' && tools.has(message.params.name);
}

/** How an MCP server's tools are set up: where its token comes from, and their rate limit when it names none. */
export interface McpConnectOptions {
  secrets: SecretSource;
  /** MCP_RATE_LIMIT_DEFAULT: calls per minute per tenant. */
  defaultRateLimit: number;
}

export async function connectMcpServer(config: McpServerConfig, outbound: OutboundHttp, options: McpConnectOptions): Promise<McpServerTools> {
  const token = config.bearer_token_env ? options.secrets(config.bearer_token_env) : undefined;
  if (config.bearer_token_env && !token)
    throw new Error(`MCP server ${config.name}: neither ${config.bearer_token_env} nor ${config.bearer_token_env}_FILE is set`);
  // token() is asked before every request, so a reconnect sends it again.
  const authProvider = token ? { token: async () => token } : undefined;
  const destructive = new Set<string>();
  // A request failing on the network may already have reached the server: the guard may retry it,
  // except when it carries a destructive tool's call.
  // (The guard's fetch is undici's; the SDK's FetchLike names the global fetch's types, which undici's only mirror.)
  const fetch = ((target: string | URL, init?: RequestInit) =>
    outbound.fetch(target, init, { once: callsOneOf(destructive, init?.body) })) as unknown as FetchLike;
  const transportOptions = { fetch, ...(authProvider ? { authProvider } : {}) };
  const url = new URL(config.url);

  let client: Client | undefined;
  const connect = async (): Promise<Client> => {
    let fresh = new Client({ name: 'weft', version: weftVersion }, { versionNegotiation: { mode: 'auto' } });
    try {
      await fresh.connect(new StreamableHTTPClientTransport(url, transportOptions));
    } catch (err) {
      // A server that predates Streamable HTTP answers its POSTs with 4xx: speak SSE to it instead.
      if (!(err instanceof SdkHttpError) || ![400, 404, 405].includes(err.status)) throw guardErrorIn(err) ?? err;
      fresh = new Client({ name: 'weft', version: weftVersion });
      await fresh.connect(new SSEClientTransport(url, transportOptions));
    }
    const connected = fresh;
    connected.onclose = () => {
      if (client === connected) client = undefined;
    };
    client = connected;
    return connected;
  };

  const listed = await (await connect()).listTools();
  for (const tool of listed.tools) if (tool.annotations?.destructiveHint === true) destructive.add(tool.name);
  const rateLimit = config.rate_limit ?? options.defaultRateLimit;

  /** `once`: a destructive call is not sent again on a new connection, since the first may have arrived. */
  const call = async (name: string, args: Record<string, unknown>, once: boolean, signal?: AbortSignal) => {
    const options = { ...(signal ? { signal } : {}), ...(config.timeout_ms ? { timeout: config.timeout_ms } : {}) };
    const used = client ?? (await connect());
    try {
      return await used.callTool({ name, arguments: args }, options);
    } catch (err) {
      if (signal?.aborted) throw err;
      // The session may have expired or the connection dropped: later calls go on a new connection.
      if (client === used) client = undefined;
      await used.close().catch(() => {});
      // The guard has already retried what it could; a destructive call may have arrived.
      if (guardErrorIn(err) || once) throw err;
      return (await connect()).callTool({ name, arguments: args }, options);
    }
  };

  const tools = listed.tools.map((tool): ToolDefinition => ({
    ...toolMetadata({
      name: sourcedToolName(config.name, tool.name),
      version: '1.0.0',
      description: tool.description ?? tool.title ?? tool.name,
      category: `mcp:${config.name}`,
      parameters: tool.inputSchema as Record<string, unknown>,
      rateLimitPerMinute: rateLimit,
      costPerUse: config.cost_per_use ?? 0,
      dangerous: tool.annotations?.destructiveHint === true,
      // A destructive tool is not run twice: MCP has no standard idempotency key to make a repeat safe.
      idempotency: tool.annotations?.destructiveHint === true ? 'at_most_once' : 'idempotent',
      ...(config.timeout_ms ? { timeoutMs: config.timeout_ms } : {}),
    }),
    async execute(args, context) {
      let result: Awaited<ReturnType<typeof call>>;
      try {
        result = await call(tool.name, args, tool.annotations?.destructiveHint === true, context.signal);
      } catch (err) {
        const guardError = guardErrorIn(err);
        if (guardError || context.signal?.aborted) throw guardError ?? err;
        throw new ToolError('network', `MCP server ${config.name} failed: ${(err as Error).message}`);
      }
      const output = outputOf(result as { content?: unknown; structuredContent?: unknown });
      if (result.isError) throw new ToolError('execution', typeof output === 'string' ? output : JSON.stringify(output));
      return output;
    },
  }));
  return { tools, close: async () => client?.close() };
}
