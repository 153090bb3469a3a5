import { createServer } from 'node:net';
import { DefaultLogger, Runtime, makeTelemetryFilterString, type LogEntry } from '@temporalio/worker';
import { log } from '../core/telemetry/logger';

// The Temporal SDK's runtime in a worker process: its log lines (workflow and activity logs with
// their workflow, run and activity ids) go through Weft's JSON logger, and its own metrics (workflow
// and activity task latencies, slots, sticky cache, polls) are exported for Prometheus on a private
// loopback port that the worker's /metrics adds to its own.

const levels = { TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' } as const;

function toWeftLog({ level, message, meta }: LogEntry): void {
  log()[levels[level]]({ ...meta, source: 'temporal-sdk' }, message);
}

/** A port free right now on loopback. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Installs the runtime (before any connection); reads the SDK's metrics in Prometheus' text format. */
export async function installWorkerRuntime(logLevel: string): Promise<{ sdkMetrics: () => Promise<string> }> {
  const sdkLevel =
    logLevel === 'trace'
      ? 'TRACE'
      : logLevel === 'debug'
        ? 'DEBUG'
        : logLevel === 'warn'
          ? 'WARN'
          : logLevel === 'error' || logLevel === 'fatal'
            ? 'ERROR'
            : 'INFO';
  const address = `127.0.0.1:${await freePort()}`;
  Runtime.install({
    logger: new DefaultLogger(sdkLevel, toWeftLog),
    telemetryOptions: {
      logging: { filter: makeTelemetryFilterString({ core: 'WARN', other: 'WARN' }), forward: {} },
      metrics: { prometheus: { bindAddress: address, countersTotalSuffix: true, useSecondsForDurations: true, unitSuffix: true } },
    },
  });
  return {
    sdkMetrics: async () => {
      const response = await fetch(`http://${address}/metrics`);
      if (!response.ok) throw new Error(`the SDK's metrics answered ${response.status}`);
      return response.text();
    },
  };
}
