import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { brokenTool, forecastTool, McpTestHttpServer, resetTool, slowTool } from './mcp-test-http';

// A real 2025-era MCP server, built with the v1 MCP SDK (which knows nothing of 2026-07-28 and
// its `server/discover`): Streamable HTTP with sessions at /mcp, and the older HTTP+SSE transport
// at /sse. A restart drops every session.

export class McpTestServer extends McpTestHttpServer {
  private transports = new Map<string, StreamableHTTPServerTransport>();
  private sseTransports = new Map<string, SSEServerTransport>();

  /** The same server for clients of the older HTTP+SSE transport. */
  get sseUrl(): string {
    return `http://127.0.0.1:${this.port}/sse`;
  }

  private mcpServer(): McpServer {
    const mcp = new McpServer({ name: 'weather-test', version: '1.0.0' });
    const protocolVersionOf = (extra: { requestInfo?: { headers: Record<string, unknown> } }) =>
      extra.requestInfo?.headers['mcp-protocol-version'] as string | undefined;
    mcp.registerTool('forecast', { description: forecastTool.description, inputSchema: forecastTool.input }, async ({ city, days }, extra) =>
      this.forecast(city, days, protocolVersionOf(extra)),
    );
    mcp.registerTool('broken', { description: brokenTool.description, inputSchema: {} }, async (_args, extra) => this.broken(protocolVersionOf(extra)));
    mcp.registerTool('slow', { description: slowTool.description, inputSchema: {} }, async (_args, extra) => this.slow(extra.signal, protocolVersionOf(extra)));
    mcp.registerTool('reset_station', { ...resetTool, inputSchema: {} }, async (_args, extra) => this.reset(protocolVersionOf(extra)));
    return mcp;
  }

  protected handle(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? '').split('?')[0];
    if (path === '/sse' && req.method === 'GET') {
      const transport = new SSEServerTransport('/messages', res);
      this.sseTransports.set(transport.sessionId, transport);
      return void this.mcpServer().connect(transport);
    }
    if (path === '/sse') return void res.writeHead(405).end();
    if (path === '/messages') {
      const transport = this.sseTransports.get(new URL(req.url!, 'http://x').searchParams.get('sessionId') ?? '');
      return transport ? void transport.handlePostMessage(req, res) : void res.writeHead(404).end();
    }
    const sessionId = req.headers['mcp-session-id'];
    const existing = typeof sessionId === 'string' ? this.transports.get(sessionId) : undefined;
    if (existing) return void existing.handleRequest(req, res);
    if (typeof sessionId === 'string') {
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }));
      return;
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void this.transports.set(id, transport),
    });
    void this.mcpServer()
      .connect(transport)
      .then(() => transport.handleRequest(req, res));
  }

  protected async dropClients(): Promise<void> {
    for (const transport of [...this.transports.values(), ...this.sseTransports.values()]) await transport.close();
    this.transports.clear();
    this.sseTransports.clear();
  }
}
