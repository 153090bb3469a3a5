import type { IncomingMessage, ServerResponse } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer, type McpHttpHandler } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { brokenTool, forecastTool, McpTestHttpServer, resetTool, slowTool } from './mcp-test-http';

// A real MCP server that speaks protocol revision 2026-07-28, built with the v2 MCP SDK's
// createMcpHandler: `server/discover`, then stateless per-request exchanges at /mcp (it serves
// 2025 clients too, statelessly, as the SDK does by default).

export class Mcp2026TestServer extends McpTestHttpServer {
  private handler?: McpHttpHandler;
  private nodeHandler?: ReturnType<typeof toNodeHandler>;

  private mcpServer(): McpServer {
    const mcp = new McpServer({ name: 'weather-test-2026', version: '2.0.0' });
    const protocolVersionOf = (req: Request | undefined) => req?.headers.get('mcp-protocol-version');
    mcp.registerTool('forecast', { description: forecastTool.description, inputSchema: z.object(forecastTool.input) }, async ({ city, days }, ctx) =>
      this.forecast(city, days, protocolVersionOf(ctx.http?.req)),
    );
    mcp.registerTool('broken', { description: brokenTool.description, inputSchema: z.object({}) }, async (_args, ctx) =>
      this.broken(protocolVersionOf(ctx.http?.req)),
    );
    mcp.registerTool('slow', { description: slowTool.description, inputSchema: z.object({}) }, async (_args, ctx) =>
      this.slow(ctx.mcpReq.signal, protocolVersionOf(ctx.http?.req)),
    );
    mcp.registerTool('reset_station', { ...resetTool, inputSchema: z.object({}) }, async (_args, ctx) => this.reset(protocolVersionOf(ctx.http?.req)));
    return mcp;
  }

  protected handle(req: IncomingMessage, res: ServerResponse): void {
    if (!this.nodeHandler) {
      this.handler = createMcpHandler(() => this.mcpServer());
      this.nodeHandler = toNodeHandler(this.handler);
    }
    void this.nodeHandler(req, res);
  }

  protected async dropClients(): Promise<void> {
    await this.handler?.close();
    this.handler = undefined;
    this.nodeHandler = undefined;
  }
}
