import { timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { Registry } from 'prom-client';
import { log } from './logger';

/**
 * Serves a process's metrics for Prometheus at GET /metrics, on loopback unless the host says
 * otherwise; with a token, only to `authorization: Bearer <token>`. `more` adds another exposition
 * after the registry's (the Temporal SDK's own metrics, in the worker).
 */
export async function serveMetrics(
  registry: Registry,
  host: string,
  port: number,
  token?: string,
  more?: () => Promise<string>,
): Promise<{ port: number; close(): Promise<void> }> {
  const expected = token ? Buffer.from(`Bearer ${token}`) : undefined;
  const authorized = (header: string | undefined) => !expected || (header !== undefined && Buffer.byteLength(header) === expected.length && timingSafeEqual(Buffer.from(header), expected));
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url !== '/metrics') return void res.writeHead(404).end('metrics are at /metrics\n');
    if (!authorized(req.headers.authorization)) return void res.writeHead(401, { 'www-authenticate': 'Bearer' }).end('send authorization: Bearer <WEFT_METRICS_TOKEN>\n');
    Promise.all([registry.metrics(), more?.() ?? '']).then(
      ([own, added]) => res.writeHead(200, { 'content-type': registry.contentType }).end(added ? `${own}\n${added}` : own),
      (err: unknown) => {
        log().error({ err }, 'metrics: collecting failed');
        res.writeHead(500).end('collecting metrics failed\n');
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const address = server.address();
  return { port: typeof address === 'object' && address ? address.port : port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
