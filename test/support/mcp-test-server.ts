import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

// A real MCP server, built with the MCP SDK, that the tests start: Streamable HTTP with sessions at
// /mcp, the older HTTP+SSE transport at /sse, two tools (a forecast, and one that always reports an
// error), a call counter and the Authorization header of every request. It can be restarted on the same port, dropping every session, to
// exercise reconnects.

export class McpTestServer {
  calls = 0;
  /** The Authorization header of every HTTP request ('' when absent). */
  readonly authorizations: string[] = [];
  private server?: Server;
  private port = 0;
  private transports = new Map<string, StreamableHTTPServerTransport>();

  get url(): string {
    return `http://127.0.0.1:${this.port}/mcp`;
  }

  /** The same server for clients of the older HTTP+SSE transport. */
  get sseUrl(): string {
    return `http://127.0.0.1:${this.port}/sse`;
  }

  private sseTransports = new Map<string, SSEServerTransport>();

  private mcpServer(): McpServer {
    const mcp = new McpServer({ name: 'weather-test', version: '1.0.0' });
    mcp.registerTool(
      'forecast',
      { description: 'The weather forecast for a city.', inputSchema: { city: z.string().min(1), days: z.number().int().min(1).max(7).optional() } },
      async ({ city, days }) => {
        this.calls += 1;
        return { content: [{ type: 'text', text: `Sunny in ${city} for ${days ?? 1} day(s)` }] };
      },
    );
    mcp.registerTool('broken', { description: 'Always fails.', inputSchema: {} }, async () => {
      this.calls += 1;
      return { content: [{ type: 'text', text: 'the weather station is offline' }], isError: true };
    });
    return mcp;
  }

  async start(port = this.port): Promise<void> {
    this.server = createServer((req, res) => {
      this.authorizations.push(req.headers.authorization ?? '');
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
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    for (const transport of [...this.transports.values(), ...this.sseTransports.values()]) await transport.close();
    this.transports.clear();
    this.sseTransports.clear();
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    this.server = undefined;
  }
}
