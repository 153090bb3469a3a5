import { timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { Registry } from 'prom-client';

/**
 * Serves the worker's metrics for Prometheus at GET /metrics, on loopback unless the host says
 * otherwise; with a token, only to `authorization: Bearer <token>`.
 */
export async function serveMetrics(registry: Registry, host: string, port: number, token?: string): Promise<{ port: number; close(): Promise<void> }> {
  const expected = token ? Buffer.from(`Bearer ${token}`) : undefined;
  const authorized = (header: string | undefined) => !expected || (header !== undefined && Buffer.byteLength(header) === expected.length && timingSafeEqual(Buffer.from(header), expected));
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url !== '/metrics') return void res.writeHead(404).end('metrics are at /metrics\n');
    if (!authorized(req.headers.authorization)) return void res.writeHead(401, { 'www-authenticate': 'Bearer' }).end('send authorization: Bearer <WEFT_METRICS_TOKEN>\n');
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (err: unknown) => {
        console.error('metrics: collecting failed:', err);
        res.writeHead(500).end('collecting metrics failed\n');
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const address = server.address();
  return { port: typeof address === 'object' && address ? address.port : port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
