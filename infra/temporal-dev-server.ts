import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { weftSearchAttributes } from '../workflows/search-attributes';
import { ensureGoTool, temporalCli } from './go-tools';

export const repoRoot = path.resolve(__dirname, '..');
export const stateDir = path.join(repoRoot, '.state');

export function ensureTemporalCli(log: (line: string) => void = console.log): string {
  return ensureGoTool(temporalCli, log);
}

export interface DevServerOptions {
  port: number;
  /** Web UI port; omit for a headless server. */
  uiPort?: number;
  /** SQLite file for persistence; omit for an in-memory server. */
  dbFile?: string;
  logFile: string;
}

export interface RunningDevServer {
  address: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** Starts `temporal server start-dev`, waits until it answers, and registers Weft's search attributes. */
export async function startDevServer(options: DevServerOptions, log: (line: string) => void = console.log): Promise<RunningDevServer> {
  const cli = ensureTemporalCli(log);
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(options.port), '--log-level', 'warn'];
  // Local latency: one partition per task queue (a single worker's polls and its tasks never sit on
  // different partitions), and the history service reads its transfer queue as often as tasks come
  // rather than at most 20 times a second (which adds up to 50 ms before every task is dispatched).
  for (const setting of ['matching.numTaskqueueReadPartitions=1', 'matching.numTaskqueueWritePartitions=1', 'history.transferProcessorMaxPollRPS=1000']) {
    args.push('--dynamic-config-value', setting);
  }
  if (options.uiPort) args.push('--ui-port', String(options.uiPort));
  else args.push('--headless');
  if (options.dbFile) {
    mkdirSync(path.dirname(options.dbFile), { recursive: true });
    args.push('--db-filename', options.dbFile, '--sqlite-pragma', 'journal_mode=wal');
  }
  mkdirSync(path.dirname(options.logFile), { recursive: true });
  const out = openSync(options.logFile, 'a');
  const child = spawn(cli, args, { stdio: ['ignore', out, out] });
  const address = `127.0.0.1:${options.port}`;
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    await Promise.race([
      ensureSearchAttributes(address),
      exited.then((code) => {
        throw new Error(`temporal dev server exited with code ${code}; see ${options.logFile}`);
      }),
    ]);
  } catch (err) {
    child.kill('SIGTERM');
    throw err;
  }
  return {
    address,
    process: child,
    stop: async () => {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Waits for a Temporal frontend and registers any of Weft's search attributes it lacks. */
export async function ensureSearchAttributes(address: string, namespace = 'default', timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let connection: Connection | undefined;
  for (;;) {
    try {
      connection = await Connection.connect({ address, connectTimeout: 2_000 });
      await connection.workflowService.getSystemInfo({});
      break;
    } catch (err) {
      await connection?.close();
      if (Date.now() > deadline) {
        throw new Error(`Temporal at ${address} did not become healthy: ${String(err)}`, { cause: err });
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  try {
    const existing = await connection.operatorService.listSearchAttributes({ namespace });
    const missing = weftSearchAttributes.filter((key) => !(key.name in (existing.customAttributes ?? {})));
    if (missing.length > 0) {
      const { IndexedValueType } = temporal.api.enums.v1;
      const typeIds = { KEYWORD: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD, BOOL: IndexedValueType.INDEXED_VALUE_TYPE_BOOL };
      await connection.operatorService.addSearchAttributes({
        namespace,
        searchAttributes: Object.fromEntries(missing.map((key) => [key.name, typeIds[key.type as keyof typeof typeIds]])),
      });
    }
  } finally {
    await connection.close();
  }
}
