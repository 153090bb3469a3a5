import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { Client } from 'pg';

// Several API and worker processes start at once against a new database: each migrates at
// start-up (here `npm run migrate`'s entry point, four processes at once), the migrations run
// once, and none of the starters fails for having lost the race.

const repoRoot = path.resolve(__dirname, '../..');

function migrateInItsOwnProcess(databaseUrl: string): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'infra/migrate.ts'], { cwd: repoRoot, env: { ...process.env, DATABASE_URL: databaseUrl } });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, output })));
}

it('processes migrating one new database at once all succeed, and each migration is applied once', async () => {
  const url = new URL(process.env.DATABASE_URL!);
  const name = `weft_migrate_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  url.pathname = `/${name}`;
  const admin = new Client({ connectionString: process.env.DATABASE_URL! });
  await admin.connect();
  try {
    const starters = await Promise.all(Array.from({ length: 4 }, () => migrateInItsOwnProcess(url.toString())));
    // The whole output is compared on failure, so a starter that lost a race says how.
    for (const starter of starters) expect(starter).toEqual({ code: 0, output: expect.not.stringContaining('Another migration') });
    const migrated = new Client({ connectionString: url.toString() });
    await migrated.connect();
    const { rows } = await migrated.query<{ name: string }>('SELECT name FROM weft_migrations');
    await migrated.end();
    expect(rows.length).toBeGreaterThan(10);
    expect(new Set(rows.map((row) => row.name)).size).toBe(rows.length);
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
});
