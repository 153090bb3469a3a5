import { timingSafeEqual } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { Registry } from 'prom-client';
import { log } from './logger';

// A process's operations port (the API's and the worker's): Prometheus metrics at GET /metrics
// (with a token, only to `authorization: Bearer <token>`), and the probes a load balancer or
// Kubernetes asks: GET /healthz (the process answers) and GET /readyz (it can take work now: 503
// with the reason while it starts, drains or has lost a dependency).

export interface OpsServerOptions {
  registry: Registry;
  /** Loopback unless a deployment exposes it. */
  host: string;
  /** 0: a free port. */
  port: number;
  token?: string;
  /** Another exposition after the registry's (the Temporal SDK's own metrics, in the worker). */
  moreMetrics?: () => Promise<string>;
  /** Why the process cannot take work now, or undefined when it can. */
  notReady?: () => Promise<string | undefined>;
}

/** Whether a request may read metrics: always without a token, else only with `authorization: Bearer <token>`. */
export function metricsAuthorized(token: string | undefined, authorization: string | undefined): boolean {
  const expected = token ? Buffer.from(`Bearer ${token}`) : undefined;
  return (
    !expected || (authorization !== undefined && Buffer.byteLength(authorization) === expected.length && timingSafeEqual(Buffer.from(authorization), expected))
  );
}

function metrics(options: OpsServerOptions, authorization: string | undefined, res: ServerResponse): void {
  if (!metricsAuthorized(options.token, authorization))
    return void res.writeHead(401, { 'www-authenticate': 'Bearer' }).end('send authorization: Bearer <WEFT_METRICS_TOKEN>\n');
  Promise.all([options.registry.metrics(), options.moreMetrics?.() ?? '']).then(
    ([own, added]) => res.writeHead(200, { 'content-type': options.registry.contentType }).end(added ? `${own}\n${added}` : own),
    (err: unknown) => {
      log().error({ err }, 'metrics: collecting failed');
      res.writeHead(500).end('collecting metrics failed\n');
    },
  );
}

function readiness(options: OpsServerOptions, res: ServerResponse): void {
  (options.notReady?.() ?? Promise.resolve(undefined)).then(
    (reason) => (reason ? res.writeHead(503).end(`not ready: ${reason}\n`) : res.writeHead(200).end('ready\n')),
    (err: unknown) => res.writeHead(503).end(`not ready: ${err instanceof Error ? err.message : String(err)}\n`),
  );
}

export async function serveOps(options: OpsServerOptions): Promise<{ port: number; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET') return void res.writeHead(405).end();
    if (req.url === '/metrics') return metrics(options, req.headers.authorization, res);
    if (req.url === '/healthz') return void res.writeHead(200).end('ok\n');
    if (req.url === '/readyz') return readiness(options, res);
    res.writeHead(404).end('try /metrics, /healthz or /readyz\n');
  });
  await new Promise<void>((resolve) => server.listen(options.port, options.host, resolve));
  const address = server.address();
  return { port: typeof address === 'object' && address ? address.port : options.port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
