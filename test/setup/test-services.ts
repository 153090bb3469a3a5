import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { repoRoot, stateDir } from '../../infra/temporal-dev-server';
import { startTestTemporal } from './test-temporal';
import { bundleWorkflows } from '../../workers/create-worker';

// What every suite needs, started once: Temporal on free ports (never the ones `make up` uses; the
// dev server, or the real server's processes, see test-temporal.ts), a fresh database with all
// migrations, and one workflow bundle. The locations
// reach test files through environment variables.

const testStateDir = path.join(stateDir, 'test');

async function adminQuery(adminUrl: string, sql: string): Promise<void> {
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}

export interface TestServices {
  stop(): Promise<void>;
}

export async function startTestServices(): Promise<TestServices> {
  mkdirSync(testStateDir, { recursive: true });
  const adminUrl = process.env.WEFT_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const dropDatabase = (name: string) => adminQuery(adminUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  const temporal = await startTestTemporal(testStateDir, adminUrl, dropDatabase);

  const dbName = `weft_test_${process.pid}`;
  await dropDatabase(dbName);
  await adminQuery(adminUrl, `CREATE DATABASE "${dbName}"`);
  const databaseUrl = new URL(adminUrl);
  databaseUrl.pathname = `/${dbName}`;
  // Migrations run as a process: node-pg-migrate is ESM-only and stays out of jest's module system.
  execFileSync(path.join(repoRoot, 'node_modules/.bin/tsx'), ['infra/migrate.ts'], {
    cwd: repoRoot,
    env: { ...process.env, DATABASE_URL: databaseUrl.toString() },
    stdio: 'pipe',
  });

  const bundlePath = path.join(testStateDir, `workflow-bundle-${process.pid}.js`);
  writeFileSync(bundlePath, await bundleWorkflows());

  process.env.TEMPORAL_ADDRESS = temporal.address;
  process.env.WEFT_TEST_TEMPORAL_UI = temporal.uiUrl;
  process.env.DATABASE_URL = databaseUrl.toString();
  process.env.WEFT_TEST_WORKFLOW_BUNDLE = bundlePath;

  return {
    async stop() {
      await temporal.stop();
      await dropDatabase(dbName);
      rmSync(bundlePath, { force: true });
    },
  };
}
