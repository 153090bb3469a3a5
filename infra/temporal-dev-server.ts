import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { weftSearchAttributes } from '../workflows/search-attributes';

export const repoRoot = path.resolve(__dirname, '..');
export const stateDir = path.join(repoRoot, '.state');
const toolsBin = path.join(repoRoot, '.tools', 'bin');
const cliModule = 'github.com/temporalio/cli/cmd/temporal@v1.5.1';

function onPath(command: string): string | undefined {
  try {
    return execFileSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Finds the Temporal CLI (TEMPORAL_CLI, PATH, then .tools/bin) or builds it there with Go once.
 * Newer CLI tags carry a replace directive that `go install` refuses, hence the pinned version.
 */
export function ensureTemporalCli(log: (line: string) => void = console.log): string {
  const local = path.join(toolsBin, 'temporal');
  const found = process.env.TEMPORAL_CLI || onPath('temporal') || (existsSync(local) ? local : undefined);
  if (found) return found;
  const go = onPath('go') ?? (existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : undefined);
  if (!go) {
    throw new Error(
      'The Temporal CLI was not found and Go is not installed to build it. Install one of:\n' +
        '  - the Temporal CLI: https://docs.temporal.io/cli#install (then make sure `temporal` is on PATH), or\n' +
        `  - Go 1.22+ (https://go.dev/dl/), and Weft builds it: go install ${cliModule}\n` +
        'Or point Weft at an existing cluster with TEMPORAL_ADDRESS=host:7233.',
    );
  }
  log(`building the Temporal CLI into ${toolsBin} (once; takes a few minutes)...`);
  mkdirSync(toolsBin, { recursive: true });
  execFileSync(go, ['install', cliModule], {
    stdio: 'inherit',
    env: { ...process.env, CGO_ENABLED: '0', GOBIN: toolsBin },
  });
  return local;
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
  for (const setting of [
    'matching.numTaskqueueReadPartitions=1',
    'matching.numTaskqueueWritePartitions=1',
    'history.transferProcessorMaxPollRPS=1000',
  ]) {
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
        searchAttributes: Object.fromEntries(
          missing.map((key) => [key.name, typeIds[key.type as keyof typeof typeIds]]),
        ),
      });
    }
  } finally {
    await connection.close();
  }
}
