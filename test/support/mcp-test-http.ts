import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';

// What the tests' MCP servers share, whichever SDK serves the protocol: an HTTP server on
// 127.0.0.1 that can be restarted on the same port (dropping what it held for its clients, to
// exercise reconnects), the Authorization header of every request, and the same tools: a forecast,
// one that always reports an error, a slow one that notices being cancelled, and a destructive one.
// Each tool call is counted with the MCP-Protocol-Version header it came with, so a test sees which
// revision the client spoke.

export const forecastTool = {
  description: 'The weather forecast for a city.',
  input: { city: z.string().min(1), days: z.number().int().min(1).max(7).optional() },
};
export const brokenTool = { description: 'Always fails.', message: 'the weather station is offline' };
export const slowTool = { description: 'Answers after ten seconds, unless cancelled first.' };
export const resetTool = { description: 'Resets the weather station.', annotations: { destructiveHint: true } };

export abstract class McpTestHttpServer {
  calls = 0;
  /** The Authorization header of every HTTP request ('' when absent). */
  readonly authorizations: string[] = [];
  /** The MCP-Protocol-Version header of every tool call, in order ('' when absent). */
  readonly callProtocolVersions: string[] = [];
  /** Calls of the slow tool that the client cancelled. */
  cancelledCalls = 0;
  /** Whether the destructive tool breaks the connection its call came on, once it has run. */
  breakConnectionOnReset = false;
  private server?: Server;
  private requestInFlight?: IncomingMessage;
  protected port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}/mcp`;
  }

  protected abstract handle(req: IncomingMessage, res: ServerResponse): void;
  /** Drops what the server holds for its clients: sessions, open streams. */
  protected abstract dropClients(): Promise<void>;

  protected forecast(city: string, days: number | undefined, protocolVersion: string | null | undefined) {
    this.countCall(protocolVersion);
    return { content: [{ type: 'text' as const, text: `Sunny in ${city} for ${days ?? 1} day(s)` }] };
  }

  protected broken(protocolVersion: string | null | undefined) {
    this.countCall(protocolVersion);
    return { content: [{ type: 'text' as const, text: brokenTool.message }], isError: true };
  }

  protected async slow(signal: AbortSignal, protocolVersion: string | null | undefined) {
    this.countCall(protocolVersion);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 10_000);
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        this.cancelledCalls += 1;
        resolve();
      });
    });
    return { content: [{ type: 'text' as const, text: 'the forecast, at last' }] };
  }

  protected reset(protocolVersion: string | null | undefined) {
    this.countCall(protocolVersion);
    if (this.breakConnectionOnReset) this.requestInFlight?.socket.destroy();
    return { content: [{ type: 'text' as const, text: 'station reset' }] };
  }

  private countCall(protocolVersion: string | null | undefined) {
    this.calls += 1;
    this.callProtocolVersions.push(protocolVersion ?? '');
  }

  async start(port = this.port): Promise<void> {
    this.server = createServer((req, res) => {
      this.authorizations.push(req.headers.authorization ?? '');
      // The tests call one tool at a time, so the request a tool runs for is the latest one.
      this.requestInFlight = req;
      this.handle(req, res);
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    await this.dropClients();
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    this.server = undefined;
  }
}
