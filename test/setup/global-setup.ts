import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { Client } from 'pg';
import { bundleWorkflowCode } from '@temporalio/worker';
import { repoRoot, startDevServer, stateDir, type RunningDevServer } from '../../infra/temporal-dev-server';
import { workflowsPath } from '../../workers/create-worker';

// Starts what every suite needs, once: a Temporal dev server on a free port (never the one
// `make up` uses), a fresh test database with all migrations, and one workflow bundle.

export const testStateDir = path.join(stateDir, 'test');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function recreateDatabase(adminUrl: string, name: string): Promise<void> {
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
}

declare global {
  var weftTestTemporal: RunningDevServer | undefined;
}

export default async function globalSetup(): Promise<void> {
  mkdirSync(testStateDir, { recursive: true });
  const port = await freePort();
  globalThis.weftTestTemporal = await startDevServer({ port, logFile: path.join(testStateDir, 'temporal.log') });

  const serverUrl = new URL(process.env.WEFT_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  const dbName = `weft_test_${process.pid}`;
  await recreateDatabase(serverUrl.toString(), dbName);
  const databaseUrl = new URL(serverUrl);
  databaseUrl.pathname = `/${dbName}`;
  // Migrations run as a process: node-pg-migrate is ESM-only and stays out of jest's module system.
  execFileSync(path.join(repoRoot, 'node_modules/.bin/tsx'), ['infra/migrate.ts'], {
    cwd: repoRoot,
    env: { ...process.env, DATABASE_URL: databaseUrl.toString() },
    stdio: 'pipe',
  });

  const bundle = await bundleWorkflowCode({ workflowsPath, logger: { info() {}, warn() {}, error: console.error, debug() {}, trace() {}, log() {} } });
  const bundlePath = path.join(testStateDir, 'workflow-bundle.js');
  writeFileSync(bundlePath, bundle.code);

  process.env.TEMPORAL_ADDRESS = globalThis.weftTestTemporal.address;
  process.env.DATABASE_URL = databaseUrl.toString();
  process.env.WEFT_TEST_WORKFLOW_BUNDLE = bundlePath;
  process.env.WEFT_TEST_ADMIN_URL = serverUrl.toString();
  process.env.WEFT_TEST_DB_NAME = dbName;
}
