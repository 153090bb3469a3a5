import { z } from 'zod';
import type { ToolRegistry } from '../registry';
import type { OutboundHttp } from '../outbound/outbound-http';
import { connectMcpServer, mcpServerSchema, type McpServerConfig, type McpServerTools } from './mcp-server';

// The MCP servers of WEFT_MCP_SERVERS (a JSON array), registered when the process starts. A server
// that cannot be reached then is tried again, with growing pauses, until it can; its tools appear
// in the registry once it answers.

const retryMs = { first: 1_000, max: 60_000 };

export function parseMcpServers(json: string | undefined): McpServerConfig[] {
  if (!json) return [];
  const parsed = z.array(mcpServerSchema).safeParse(JSON.parse(json));
  if (!parsed.success) throw new Error(`WEFT_MCP_SERVERS is invalid: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return parsed.data;
}

export function registerMcpServers(
  registry: ToolRegistry,
  servers: readonly McpServerConfig[],
  outbound: OutboundHttp,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): { close(): Promise<void> } {
  const connected: McpServerTools[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let closed = false;
  const attempt = async (server: McpServerConfig, waitMs: number) => {
    try {
      const tools = await connectMcpServer(server, outbound, env);
      if (closed) return void (await tools.close());
      registry.add(tools.tools);
      connected.push(tools);
      log(`MCP server ${server.name}: ${tools.tools.length} tools registered`);
    } catch (err) {
      if (closed) return;
      log(`MCP server ${server.name} unavailable (${(err as Error).message}); trying again in ${waitMs / 1000} s`);
      const timer = setTimeout(() => {
        timers.delete(timer);
        void attempt(server, Math.min(waitMs * 2, retryMs.max));
      }, waitMs);
      timer.unref();
      timers.add(timer);
    }
  };
  for (const server of servers) void attempt(server, retryMs.first);
  return {
    async close() {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      await Promise.all(connected.map((tools) => tools.close()));
    },
  };
}
