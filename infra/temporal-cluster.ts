import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { msToTs } from '@temporalio/common/lib/time';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { Client as PgClient } from 'pg';
import { ensureGoTool, onPath, temporalServer, temporalSqlTool, temporalUiServer } from './go-tools';
import type { ManagedProcess } from './processes';
import { serverProcesses, writeClusterConfig, type ClusterDatabases, type ClusterPorts } from './temporal-cluster-config';
import { ensureSearchAttributes } from './temporal-dev-server';

// `make cluster`'s Temporal: the real server as separate processes (frontend, two history hosts,
// matching, worker) on Postgres, created and migrated with Temporal's schema tool, and the
// standalone Web UI server. Each process logs to its own file.

const schemaModule = 'go.temporal.io/server@v1.32.1';
/** The databases `make cluster` uses (the tests' cluster names its own). */
export const clusterDatabases: ClusterDatabases = { default: 'temporal', visibility: 'temporal_visibility' };

function goModCache(): string {
  const go = onPath('go') ?? '/usr/local/go/bin/go';
  return execFileSync(go, ['env', 'GOMODCACHE'], { encoding: 'utf8' }).trim();
}

/** The server module's schema folders (in the module cache once the server is built; fetched otherwise). */
function schemaDir(): string {
  const dir = path.join(goModCache(), schemaModule, 'schema', 'postgresql', 'v12');
  if (!existsSync(dir)) execFileSync(onPath('go') ?? '/usr/local/go/bin/go', ['mod', 'download', schemaModule], { stdio: 'inherit', cwd: tmpdir() });
  return dir;
}

async function schemaVersionExists(databaseUrl: string, database: string): Promise<boolean> {
  const url = new URL(databaseUrl);
  url.pathname = `/${database}`;
  const client = new PgClient({ connectionString: url.toString() });
  await client.connect();
  try {
    const { rows } = await client.query<{ found: boolean }>(`SELECT to_regclass('public.schema_version') IS NOT NULL AS found`);
    return rows[0]!.found;
  } finally {
    await client.end();
  }
}

/** Waits until a server process has written the cluster's metadata into its database. */
async function clusterMetadataWritten(databaseUrl: string, database: string, timeoutMs = 60_000): Promise<void> {
  const url = new URL(databaseUrl);
  url.pathname = `/${database}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const client = new PgClient({ connectionString: url.toString() });
    await client.connect();
    try {
      const { rows } = await client.query('SELECT 1 FROM cluster_metadata_info LIMIT 1');
      if (rows.length > 0) return;
    } finally {
      await client.end();
    }
    if (Date.now() > deadline) throw new Error(`no Temporal process wrote the cluster metadata into ${database} within ${timeoutMs / 1000} s; see the logs`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Creates Temporal's two databases when missing and brings their schemas to the server's version. */
export async function migrateTemporalDatabases(databaseUrl: string, names: ClusterDatabases, log: (line: string) => void): Promise<void> {
  const sqlTool = ensureGoTool(temporalSqlTool, log);
  const url = new URL(databaseUrl);
  const connection = ['--plugin', 'postgres12', '--ep', url.hostname, '-p', url.port || '5432', '-u', decodeURIComponent(url.username || 'postgres')];
  if (url.password) connection.push('--pw', decodeURIComponent(url.password));
  const run = (database: string, ...args: string[]) => execFileSync(sqlTool, [...connection, '--db', database, ...args], { stdio: 'pipe' });
  const schemas = schemaDir();
  const databases = [
    { name: names.default, schema: 'temporal' },
    { name: names.visibility, schema: 'visibility' },
  ];
  for (const database of databases) {
    try {
      run(database.name, 'create-database');
    } catch (err) {
      if (!String((err as { stderr?: Buffer }).stderr ?? err).includes('already exists')) throw err;
    }
    if (!(await schemaVersionExists(databaseUrl, database.name))) run(database.name, 'setup-schema', '-v', '0.0');
    run(database.name, 'update-schema', '-d', path.join(schemas, database.schema, 'versioned'));
    log(`temporal database ${database.name}: schema up to date`);
  }
}

function startLogged(name: string, binary: string, args: string[], logDir: string): ManagedProcess {
  const out = openSync(path.join(logDir, `${name}.log`), 'a');
  const child = spawn(binary, args, { stdio: ['ignore', out, out] });
  return { name, child, exited: new Promise((resolve) => child.once('exit', resolve)) };
}

/** Waits for the frontend, registers the namespace Weft uses when the cluster is new (retention: 3 days), and waits until it is usable. */
export async function ensureNamespace(address: string, namespace: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const connection = await Connection.connect({ address, connectTimeout: 2_000 }).catch(() => undefined);
    try {
      if (connection) {
        const found = await connection.workflowService.describeNamespace({ namespace }).then(
          () => true,
          (err: { code?: number }) => (err.code === GrpcStatus.NOT_FOUND ? false : undefined),
        );
        if (found === false) await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('3 days') });
        // Every service knows a new namespace once its namespace cache has refreshed (about 10 s).
        if (
          found &&
          (await connection.operatorService.listSearchAttributes({ namespace }).then(
            () => true,
            () => false,
          ))
        )
          return;
      }
    } finally {
      await connection?.close();
    }
    if (Date.now() > deadline) throw new Error(`the Temporal frontend at ${address} did not answer within ${timeoutMs / 1000} s; see the logs`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

export interface RunningCluster {
  address: string;
  uiUrl: string;
}

/** Starts every Temporal process, then the UI, and waits until the namespace and Weft's search attributes are there. */
export async function startTemporalCluster(options: {
  dir: string;
  databaseUrl: string;
  ports: ClusterPorts;
  databases: ClusterDatabases;
  namespace: string;
  log: (line: string) => void;
  /** Each process as it starts, so that a failure later still stops it. */
  started: (proc: ManagedProcess) => void;
}): Promise<RunningCluster> {
  const { dir, ports, log } = options;
  const server = ensureGoTool(temporalServer, log);
  const uiServer = ensureGoTool(temporalUiServer, log);
  await migrateTemporalDatabases(options.databaseUrl, options.databases, log);
  const logDir = path.join(dir, 'logs');
  mkdirSync(logDir, { recursive: true });
  const { serverConfigDir, uiConfigDir } = writeClusterConfig(dir, ports, options.databases, options.databaseUrl);
  for (const [i, proc] of serverProcesses.entries()) {
    const args = ['--root', dir, '--config', path.relative(dir, serverConfigDir), '--env', proc.name, '--allow-no-auth', 'start', '--service', proc.service];
    options.started(startLogged(`temporal-${proc.name}`, server, args, logDir));
    // On new databases every process would write the cluster's metadata, and all but one would exit
    // on the version conflict: the first writes it, the others start once it is there.
    if (i === 0) await clusterMetadataWritten(options.databaseUrl, options.databases.default);
  }
  const address = `127.0.0.1:${ports.frontend.grpc}`;
  log(`temporal services starting (logs in ${logDir})...`);
  await ensureNamespace(address, options.namespace);
  await ensureSearchAttributes(address, options.namespace, 120_000);
  options.started(startLogged('temporal-ui', uiServer, ['--root', dir, '--config', path.relative(dir, uiConfigDir), '--env', 'development', 'start'], logDir));
  return { address, uiUrl: `http://127.0.0.1:${ports.ui}` };
}
